import type { GenerateParams, Model, ParamSpec } from '@mediagen/core';
import { SEED_MAX, SEED_MIN } from './constants.js';
import type { DeriveMode } from './media/derive.js';

/** Params after validation: defaults applied, resolution tags resolved, seed fixed. */
export type Normalized = Pick<
  GenerateParams,
  | 'negative_prompt'
  | 'aspect_ratio'
  | 'size'
  | 'quality'
  | 'resolution'
  | 'duration'
  | 'audio'
  | 'input_image'
  | 'input_video'
  | 'input_audio'
> &
  Required<Pick<GenerateParams, 'prompt' | 'reference_images' | 'number_results' | 'seed' | 'enhance'>>;

export type InputField = 'input_image' | 'input_video' | 'input_audio';
export type OutputFormat = 'png' | 'webm' | 'wav' | 'txt';

export interface OutputShape {
  format: OutputFormat;
  width: number;
  height: number;
  /** Seconds of media for audio and video. */
  seconds: number;
}

/** Everything the emulator knows about a model beyond its public list entry. */
export interface CatalogEntry {
  model: Model;
  /** Catalog price of a normalised request, results included. */
  price(p: Normalized): number;
  /** Video-to-video billed by exact clip length: `input_video` is refused. */
  billsByClipLength?: boolean;
  needsPrompt: boolean;
  accepts: InputField[];
  requires?: InputField[];
  /** Mode-specific refusals (OPTION_NOT_AVAILABLE): a value the model has, not for this mode. */
  modeRule?(p: Normalized): { field: string; message: string } | null;
  /** Final charge on completion when it differs from the reservation. */
  finalCharge?(reserved: number, hash: number): number;
  /** Queue pick-up and render time ranges, in seconds of real service time. */
  timing(p: Normalized): { pickup: [number, number]; render: [number, number] };
  output(p: Normalized): OutputShape;
  /**
   * How an image output is drawn from an input image: `exact` (the input scaled, an upscaler),
   * `tint` (the input restyled towards a colour from the seed). Default `tint`.
   */
  derive?: DeriveMode;
}

/**
 * The seed every model that takes one publishes: the range validate.ts enforces (RULES.md rule 3),
 * so the list, "the source of truth for what a model accepts", says it.
 */
const SEED: ParamSpec = { type: 'number', required: false, min: SEED_MIN, max: SEED_MAX };

const IMAGE_FAST_RATIOS: Record<string, string> = {
  '1:1': '1024x1024',
  '16:9': '1344x768',
  '9:16': '768x1344',
  '4:3': '1152x896',
  '3:4': '896x1152',
};

const dims = (wxh: string): { width: number; height: number } => {
  const [w, h] = wxh.split('x').map(Number);
  return { width: w ?? 0, height: h ?? 0 };
};

const IMAGE_TIMING = { pickup: [0.5, 3] as [number, number], render: [5, 15] as [number, number] };

const VIDEO_MATRIX: Record<string, Record<string, string>> = {
  '720p': { '16:9': '1280x720', '9:16': '720x1280', '1:1': '720x720' },
  '1080p': { '16:9': '1920x1080', '9:16': '1080x1920', '1:1': '1080x1080', '21:9 1080p': '2520x1080' },
};

/**
 * Video outputs are WebM (VP8) previews at a quarter of the audited dimensions: full-size
 * 1080p clips would be megabytes and seconds of CPU per download.
 */
const videoPreview = (wxh: string, seconds: number): OutputShape => {
  const d = dims(wxh);
  return { format: 'webm', width: Math.round(d.width / 4), height: Math.round(d.height / 4), seconds };
};

const imageFast: CatalogEntry = {
  model: {
    slug: 'image-fast',
    name: 'Image Fast',
    category: 'image',
    kind: 'image',
    creator: 'MediaGen Labs',
    description: 'Quick drafts from a prompt or a source image, flat price per image.',
    modes: ['text-to-image', 'image-to-image'],
    params: {
      prompt: { type: 'string', required: true },
      aspect_ratio: { type: 'enum', required: false, values: Object.keys(IMAGE_FAST_RATIOS), default: '1:1' },
      number_results: { type: 'number', required: false, max: 4, default: 1 },
      seed: SEED,
    },
    prompt_max_chars: 2000,
    credits_band: { min: 4, max: 4, flat: true },
    enhance_supported: true,
    example_request: { model: 'image-fast', prompt: 'A lighthouse at dusk, oil painting', aspect_ratio: '16:9' },
  },
  price: (p) => 4 * p.number_results,
  needsPrompt: true,
  accepts: ['input_image'],
  timing: () => IMAGE_TIMING,
  output: (p) => ({ format: 'png', ...dims(IMAGE_FAST_RATIOS[p.aspect_ratio ?? '1:1'] ?? '1024x1024'), seconds: 0 }),
};

const PRO_SIZES = [
  { size: '1024x1024', tag: '1k', label: 'Square 1K' },
  { size: '1536x1024', tag: '1k', label: 'Landscape 1K' },
  { size: '1024x1536', tag: '1k', label: 'Portrait 1K' },
  { size: '2048x2048', tag: '2k', label: 'Square 2K' },
  { size: '3072x2048', tag: '2k', label: 'Landscape 2K' },
  { size: '2048x3072', tag: '2k', label: 'Portrait 2K' },
  { size: '4096x4096', tag: '4k', label: 'Square 4K' },
];
const PRO_BY_QUALITY: Record<string, string[]> = {
  standard: ['1024x1024', '1536x1024', '1024x1536'],
  high: ['1024x1024', '1536x1024', '1024x1536', '2048x2048', '3072x2048', '2048x3072'],
  ultra: PRO_SIZES.map((s) => s.size),
};
const PRO_QUALITY_CREDITS: Record<string, number> = { standard: 10, high: 20, ultra: 40 };
const PRO_REFERENCE_CREDITS: Record<string, number> = { '0': 0, '1': 3, '2': 6 };

const imagePro: CatalogEntry = {
  model: {
    slug: 'image-pro',
    name: 'Image Pro',
    category: 'image',
    kind: 'image',
    creator: 'MediaGen Labs',
    description: 'High-fidelity images up to 4K with quality tiers and reference images.',
    modes: ['text-to-image', 'image-editing'],
    params: {
      prompt: { type: 'string', required: true },
      size: {
        type: 'enum',
        required: false,
        values: PRO_SIZES.map((s) => s.size),
        presets_only: true,
        options: PRO_SIZES,
        values_by_quality: PRO_BY_QUALITY,
        default: '1024x1024',
      },
      quality: { type: 'enum', required: false, values: ['standard', 'high', 'ultra'], default: 'standard' },
      resolution: { type: 'enum', required: false, values: ['1k', '2k', '4k'], default: '1k' },
      reference_images: { type: 'string[]', required: false, min: 0, max: 2 },
      number_results: { type: 'number', required: false, max: 4, default: 1 },
      seed: SEED,
    },
    prompt_max_chars: 2000,
    credits_band: { min: 10, max: 46, flat: false },
    credits_by_quality: PRO_QUALITY_CREDITS,
    credits_by_references: PRO_REFERENCE_CREDITS,
    enhance_supported: false,
    example_request: { model: 'image-pro', prompt: 'Macro photo of a dew-covered leaf', quality: 'high', size: '2048x2048' },
  },
  price: (p) =>
    ((PRO_QUALITY_CREDITS[p.quality ?? 'standard'] ?? 10) + (PRO_REFERENCE_CREDITS[String(p.reference_images.length)] ?? 0)) *
    p.number_results,
  needsPrompt: true,
  accepts: ['input_image'],
  timing: () => IMAGE_TIMING,
  output: (p) => ({ format: 'png', ...dims(p.size ?? '1024x1024'), seconds: 0 }),
};

const VIDEO_RATE: Record<string, number> = { '720p': 10, '1080p': 16 };

const videoStandard: CatalogEntry = {
  model: {
    slug: 'video-standard',
    name: 'Video Standard',
    category: 'video',
    kind: 'video',
    creator: 'MediaGen Labs',
    description: 'Text-to-video and image-to-video clips of 5 or 10 seconds with a synced audio track.',
    modes: ['text-to-video', 'image-to-video'],
    params: {
      prompt: { type: 'string', required: true },
      aspect_ratio: { type: 'enum', required: false, values: ['16:9', '9:16', '1:1', '21:9 1080p'], default: '16:9' },
      resolution: { type: 'enum', required: false, values: ['720p', '1080p'], default: '720p' },
      duration: { type: 'enum', required: false, values: [5, 10], default: 5 },
      audio: { type: 'boolean', required: false, default: true },
      number_results: { type: 'number', required: false, max: 1, default: 1 },
      seed: SEED,
    },
    prompt_max_chars: 2000,
    credits_band: { min: 50, max: 180, flat: false },
    video_matrix: { dimensions: VIDEO_MATRIX },
    enhance_supported: true,
    example_request: { model: 'video-standard', prompt: 'A paper boat drifting down a rainy street', duration: 5, resolution: '720p' },
  },
  price: (p) => ((VIDEO_RATE[p.resolution ?? '720p'] ?? 10) + (p.audio ? 2 : 0)) * (p.duration ?? 5) * p.number_results,
  needsPrompt: true,
  accepts: ['input_image'],
  // The first frame fixes the framing, so image-to-video renders the short clip only.
  modeRule: (p) =>
    p.input_image !== undefined && p.duration === 10
      ? { field: 'duration', message: 'duration 10 is not available in image-to-video mode on video-standard; use 5.' }
      : null,
  timing: (p) => ({ pickup: [1, 5], render: [(p.duration ?? 5) * 6, (p.duration ?? 5) * 18] }),
  output: (p) => videoPreview(VIDEO_MATRIX[p.resolution ?? '720p']?.[p.aspect_ratio ?? '16:9'] ?? '1280x720', p.duration ?? 5),
};

const videoEdit: CatalogEntry = {
  model: {
    slug: 'video-edit',
    name: 'Video Edit',
    category: 'video',
    kind: 'video',
    creator: 'Northlight',
    description: 'Restyles a source clip; billed by the exact source length. Text-to-video through the API.',
    modes: ['video-to-video', 'text-to-video'],
    params: {
      prompt: { type: 'string', required: true },
      duration: { type: 'enum', required: false, values: [5, 8], default: 5 },
      resolution: { type: 'enum', required: false, values: ['720p'], default: '720p' },
      number_results: { type: 'number', required: false, max: 1, default: 1 },
      seed: SEED,
    },
    prompt_max_chars: 1500,
    credits_band: { min: 60, max: 96, flat: false },
    enhance_supported: false,
    example_request: { model: 'video-edit', prompt: 'Neon cyberpunk city at night', duration: 5 },
  },
  price: (p) => 12 * (p.duration ?? 5),
  billsByClipLength: true,
  needsPrompt: true,
  accepts: [],
  timing: (p) => ({ pickup: [1, 5], render: [(p.duration ?? 5) * 6, (p.duration ?? 5) * 18] }),
  output: (p) => videoPreview('1280x720', p.duration ?? 5),
};

const audioVoice: CatalogEntry = {
  model: {
    slug: 'audio-voice',
    name: 'Audio Voice',
    category: 'audio',
    kind: 'audio',
    creator: 'Sonora',
    description: 'Speech and sound from text, 2 to 30 seconds, optionally driven by a reference voice.',
    modes: ['text-to-audio', 'audio-to-audio'],
    params: {
      prompt: { type: 'string', required: true },
      duration: { type: 'number', required: false, min: 2, max: 30, default: 10 },
      seed: SEED,
    },
    prompt_max_chars: 1000,
    credits_band: { min: 2, max: 30, flat: false },
    enhance_supported: false,
    example_request: { model: 'audio-voice', prompt: 'A calm narrator says: welcome aboard.', duration: 8 },
  },
  price: (p) => p.duration ?? 10,
  needsPrompt: true,
  accepts: ['input_audio'],
  timing: (p) => ({ pickup: [0.5, 2], render: [2 + (p.duration ?? 10) * 0.2, 4 + (p.duration ?? 10) * 0.4] }),
  output: (p) => ({ format: 'wav', width: 0, height: 0, seconds: p.duration ?? 10 }),
};

const textWriter: CatalogEntry = {
  model: {
    slug: 'text-writer',
    name: 'Text Writer',
    category: 'text',
    kind: 'text',
    creator: 'MediaGen Labs',
    description: 'Short copy from a prompt. Reserves its ceiling; the final charge follows the tokens used.',
    modes: ['text-to-text'],
    params: {
      prompt: { type: 'string', required: true },
      seed: SEED,
    },
    prompt_max_chars: 2000,
    credits_band: { min: 3, max: 8, flat: false },
    enhance_supported: false,
    example_request: { model: 'text-writer', prompt: 'Write a tagline for a mountain cafe.' },
  },
  price: () => 8,
  // Billed by tokens actually produced: always below the reserved ceiling.
  finalCharge: (reserved, hash) => Math.max(1, Math.round(reserved * (0.375 + (hash % 5) * 0.125))),
  needsPrompt: true,
  accepts: [],
  timing: () => ({ pickup: [0.2, 1], render: [2, 6] }),
  output: () => ({ format: 'txt', width: 0, height: 0, seconds: 0 }),
};

const UPSCALE: Record<string, string> = { '2k': '2048x2048', '4k': '4096x4096' };
const imageUpscale: CatalogEntry = {
  model: {
    slug: 'image-upscale',
    name: 'Image Upscale',
    category: 'utility',
    kind: 'image',
    creator: 'MediaGen Labs',
    description: 'Upscales one image to 2K or 4K. Takes no prompt.',
    modes: ['image-upscaling'],
    params: {
      resolution: { type: 'enum', required: false, values: ['2k', '4k'], default: '2k' },
    },
    credits_band: { min: 6, max: 12, flat: false },
    enhance_supported: false,
    example_request: { model: 'image-upscale', input_image: 'https://example.com/photo.jpg', resolution: '2k' },
  },
  price: (p) => (p.resolution === '4k' ? 12 : 6),
  needsPrompt: false,
  accepts: ['input_image'],
  requires: ['input_image'],
  derive: 'exact',
  timing: () => ({ pickup: [0.5, 2], render: [3, 8] }),
  output: (p) => ({ format: 'png', ...dims(UPSCALE[p.resolution ?? '2k'] ?? '2048x2048'), seconds: 0 }),
};

const legacyImage: CatalogEntry = {
  model: {
    slug: 'legacy-image',
    name: 'Legacy Image',
    category: 'image',
    kind: 'image',
    creator: 'MediaGen Labs',
    description: 'The first-generation model, still listed with the earlier spec forms.',
    modes: ['text-to-image'],
    params: {
      prompt: { type: 'string', required: true, max_length: 1000 },
      number_results: { type: 'integer', required: false, min: 1, max: 2, default: 1 },
      seed: { type: 'integer', required: false, min: 0, max: 4294967295 },
    },
    prompt_max_chars: 1000,
    credits_band: { min: 2, max: 2, flat: true },
    enhance_supported: false,
    example_request: { model: 'legacy-image', prompt: 'A red bicycle against a white wall' },
  },
  price: (p) => 2 * p.number_results,
  needsPrompt: true,
  accepts: [],
  timing: () => IMAGE_TIMING,
  output: () => ({ format: 'png', width: 512, height: 512, seconds: 0 }),
};

const lipsyncMulti: CatalogEntry = {
  model: {
    slug: 'lipsync-multi',
    name: 'Lipsync Multi',
    category: 'video',
    kind: 'video',
    creator: 'Northlight',
    description: 'Several speakers, each driven by a role-tagged audio track. Studio only.',
    modes: ['lipsync'],
    params: {
      prompt: { type: 'string', required: false },
      duration: { type: 'number', required: false, min: 2, max: 15, default: 5 },
    },
    prompt_max_chars: 2000,
    credits_band: { min: 40, max: 300, flat: false },
    enhance_supported: false,
    example_request: { model: 'lipsync-multi', input_video: 'https://example.com/two-speakers.mp4' },
    // Its inputs are role-tagged (who says what), which the API cannot shape: every submit is
    // `422 MODEL_NOT_API_SUPPORTED`, and the list says so rather than pass its example off as ready.
    api_supported: false,
  },
  price: (p) => 20 * (p.duration ?? 5),
  needsPrompt: false,
  accepts: ['input_video', 'input_audio'],
  timing: (p) => ({ pickup: [1, 5], render: [(p.duration ?? 5) * 6, (p.duration ?? 5) * 18] }),
  output: (p) => videoPreview('1280x720', p.duration ?? 5),
};

const mesh3d: CatalogEntry = {
  model: {
    slug: 'mesh-3d',
    name: 'Mesh 3D',
    category: 'threed',
    kind: 'image',
    creator: 'Polyform',
    description: 'A textured 3D asset from a prompt; the API returns its rendered preview.',
    modes: ['text-to-3d', 'image-to-3d'],
    params: {
      prompt: { type: 'string', required: true },
      seed: SEED,
    },
    prompt_max_chars: 800,
    credits_band: { min: 30, max: 30, flat: true },
    enhance_supported: false,
    example_request: { model: 'mesh-3d', prompt: 'A low-poly fox' },
  },
  price: () => 30,
  needsPrompt: true,
  accepts: ['input_image'],
  timing: () => ({ pickup: [1, 4], render: [20, 60] }),
  output: () => ({ format: 'png', width: 1024, height: 1024, seconds: 0 }),
};

export const entries: readonly CatalogEntry[] = [
  imageFast,
  imagePro,
  videoStandard,
  videoEdit,
  audioVoice,
  textWriter,
  imageUpscale,
  legacyImage,
  lipsyncMulti,
  mesh3d,
];

export const bySlug: ReadonlyMap<string, CatalogEntry> = new Map(entries.map((e) => [e.model.slug, e]));

/** Whether the API can shape the model's inputs: the list's own `api_supported` (absent: yes). */
export const apiSupported = (entry: CatalogEntry): boolean => entry.model.api_supported !== false;

/** The public model list (without per-account `credits_from`). */
export const catalog: Model[] = entries.map((e) => e.model);

/** The default request of a model: its params' defaults, one result, fixed seed. */
export function defaultRequest(entry: CatalogEntry): Normalized {
  const d = (k: string) => entry.model.params[k as keyof Model['params']]?.default;
  const p: Normalized = { prompt: '', reference_images: [], number_results: 1, seed: 0, enhance: false };
  for (const key of ['aspect_ratio', 'size', 'quality', 'resolution'] as const) {
    const v = d(key);
    if (typeof v === 'string') p[key] = v;
  }
  const dur = d('duration');
  if (typeof dur === 'number') p.duration = dur;
  const audio = d('audio');
  if (typeof audio === 'boolean') p.audio = audio;
  return p;
}

export type { GenerateParams };
