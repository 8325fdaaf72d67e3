import type { Model } from '../../src/types';
import catalog from './catalog.json';

/**
 * Model entries for core's tests. The catalog models come from `catalog.json`, which the
 * emulator writes from its catalog and checks on every run (`packages/emulator/test/
 * core-fixtures.test.ts`), so they cannot drift from what the emulator lists. The variants
 * below the catalog are the list forms the catalog does not show (earlier spec forms, an
 * uppercase resolution list, a required key, custom sizes, an unknown spec type); each is
 * built from a catalog entry plus the one difference it exists to test.
 */
const CATALOG = catalog as unknown as Model[];

const bySlug = (slug: string): Model => {
  const model = CATALOG.find((m) => m.slug === slug);
  if (!model) throw new Error(`catalog.json has no ${slug}; run pnpm --filter @mediagen/emulator fixtures`);
  return structuredClone(model);
};

export const imageFast = bySlug('image-fast');
export const imagePro = bySlug('image-pro');
export const videoStandard = bySlug('video-standard');
export const videoEdit = bySlug('video-edit');
export const audioVoice = bySlug('audio-voice');
export const textWriter = bySlug('text-writer');
export const imageUpscale = bySlug('image-upscale');
/** The earlier form of the list: `integer` with min/max/default, `string` with `max_length`. */
export const legacyImage = bySlug('legacy-image');
export const mesh3d = bySlug('mesh-3d');

/** Every model of the catalog, in its order. */
export const CATALOG_MODELS: readonly Model[] = CATALOG.map((m) => structuredClone(m));

/** Variant: a resolution list in uppercase (`2K`, `4K`), and the key required. */
export const upscaleRequiredUpper = {
  ...bySlug('image-upscale'),
  slug: 'image-upscale-upper',
  params: { resolution: { type: 'enum', required: true, values: ['2K', '4K'] } },
} as Model;

/** Variant: an entry whose pricing lookup failed (no `credits_from`). */
export const audioVoiceUnpriced = (() => {
  const { credits_from: _, ...rest } = bySlug('audio-voice');
  return rest as Model;
})();

/** Variant: custom sizes (`presets_only: false`), required reference images, a spec type from a later list. */
export const customSize = {
  ...bySlug('image-pro'),
  slug: 'image-custom',
  params: {
    prompt: { type: 'string', required: false },
    size: { type: 'enum', required: false, values: ['1024x1024'], presets_only: false },
    reference_images: { type: 'string[]', required: true, min: 1, max: 5 },
    style: { type: 'palette', required: false },
  },
  credits_by_quality: undefined,
  credits_by_references: undefined,
} as unknown as Model;

export const ALL_MODELS = [...CATALOG_MODELS, upscaleRequiredUpper, customSize];
