import type { Model } from '../../src/types';

/** Model entries shaped like the service's list (current and earlier spec forms). */
const base = { creator: 'Test', description: '', modes: [], credits_band: { min: 1, max: 1, flat: true }, example_request: { model: 'x' } };

export const imageFast = {
  ...base,
  slug: 'image-fast',
  name: 'Image Fast',
  category: 'image',
  kind: 'image',
  params: {
    prompt: { type: 'string', required: true },
    aspect_ratio: { type: 'enum', required: false, values: ['1:1', '16:9', '9:16'], default: '1:1' },
    number_results: { type: 'number', required: false, max: 4, default: 1 },
    seed: { type: 'number', required: false },
  },
  prompt_max_chars: 2000,
  credits_from: 4,
  enhance_supported: true,
} as Model;

export const imagePro = {
  ...base,
  slug: 'image-pro',
  name: 'Image Pro',
  category: 'image',
  kind: 'image',
  params: {
    prompt: { type: 'string', required: true },
    size: {
      type: 'enum',
      required: false,
      values: ['1024x1024', '1536x1024', '2048x2048', '4096x4096'],
      presets_only: true,
      options: [{ size: '1024x1024', tag: '1k' }],
      values_by_quality: {
        standard: ['1024x1024', '1536x1024'],
        high: ['1024x1024', '1536x1024', '2048x2048'],
        ultra: ['1024x1024', '1536x1024', '2048x2048', '4096x4096'],
      },
      default: '1024x1024',
    },
    quality: { type: 'enum', required: false, values: ['standard', 'high', 'ultra'], default: 'standard' },
    resolution: { type: 'enum', required: false, values: ['1k', '2k', '4k'], default: '1k' },
    reference_images: { type: 'string[]', required: false, min: 0, max: 2 },
    number_results: { type: 'number', required: false, max: 4, default: 1 },
    seed: { type: 'number', required: false },
  },
  prompt_max_chars: 2000,
  credits_from: 10,
  credits_by_quality: { standard: 10, high: 20, ultra: 40 },
  credits_by_references: { '0': 0, '1': 3, '2': 6 },
  enhance_supported: false,
} as Model;

export const videoStandard = {
  ...base,
  slug: 'video-standard',
  name: 'Video Standard',
  category: 'video',
  kind: 'video',
  params: {
    prompt: { type: 'string', required: true },
    aspect_ratio: { type: 'enum', required: false, values: ['16:9', '9:16', '1:1', '21:9 1080p'], default: '16:9' },
    resolution: { type: 'enum', required: false, values: ['720p', '1080p'], default: '720p' },
    duration: { type: 'enum', required: false, values: [5, 10], default: 5 },
    audio: { type: 'boolean', required: false, default: true },
    number_results: { type: 'number', required: false, max: 1, default: 1 },
    seed: { type: 'number', required: false },
  },
  prompt_max_chars: 1500,
  credits_from: 50,
  enhance_supported: true,
} as Model;

export const audioVoice = {
  ...base,
  slug: 'audio-voice',
  name: 'Audio Voice',
  category: 'audio',
  kind: 'audio',
  params: {
    prompt: { type: 'string', required: true },
    duration: { type: 'number', required: false, min: 2, max: 30, default: 10 },
  },
  prompt_max_chars: 1000,
  enhance_supported: false,
} as Model;

export const imageUpscale = {
  ...base,
  slug: 'image-upscale',
  name: 'Image Upscale',
  category: 'utility',
  kind: 'image',
  params: { resolution: { type: 'enum', required: true, values: ['2K', '4K'] } },
  enhance_supported: false,
} as Model;

/** The earlier form of the list: `integer` with min/max/default, `string` with `max_length`. */
export const legacyImage = {
  ...base,
  slug: 'legacy-image',
  name: 'Legacy Image',
  category: 'image',
  kind: 'image',
  params: {
    prompt: { type: 'string', required: true, max_length: 100 },
    number_results: { type: 'integer', required: false, min: 1, max: 2, default: 1 },
    seed: { type: 'integer', required: false, min: 0, max: 4294967295 },
  },
  enhance_supported: false,
} as Model;

export const customSize = {
  ...base,
  slug: 'image-custom',
  name: 'Image Custom',
  category: 'image',
  kind: 'image',
  params: {
    prompt: { type: 'string', required: false },
    size: { type: 'enum', required: false, values: ['1024x1024'], presets_only: false },
    reference_images: { type: 'string[]', required: true, min: 1, max: 5 },
    style: { type: 'palette', required: false },
  },
  enhance_supported: false,
} as unknown as Model;

export const ALL_MODELS = [imageFast, imagePro, videoStandard, audioVoice, imageUpscale, legacyImage, customSize];
