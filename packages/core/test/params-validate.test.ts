import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Model, validateParams } from '../src/index';
import {
  audioVoice,
  customSize,
  imageFast,
  imagePro,
  imageUpscale,
  legacyImage,
  upscaleRequiredUpper,
  videoEdit,
  videoStandard,
} from './support/models';

type Case = [name: string, model: Model, params: Record<string, unknown>, expected: string[]];
const p = (s: string) => ({ prompt: s });
const emoji = '😀';
/** A reference image the contract takes: a public https URL. */
const U = 'https://example.com/ref.png';

/** Each row: params and the `field:code` issues expected (empty: valid). */
const TABLE: Case[] = [
  // prompt
  ['valid minimal', imageFast, p('a cat'), []],
  ['missing prompt', imageFast, {}, ['prompt:MISSING_PROMPT']],
  ['empty prompt', imageFast, p(''), ['prompt:MISSING_PROMPT']],
  ['blank prompt', imageFast, p('   '), ['prompt:MISSING_PROMPT']],
  ['prompt not a string', imageFast, { prompt: 42 }, ['prompt:INVALID_TYPE']],
  ['prompt at 2000', imageFast, p('x'.repeat(2000)), []],
  ['prompt over 2000', imageFast, p('x'.repeat(2001)), ['prompt:TOO_LONG']],
  ['prompt counts code points', imageFast, p(emoji.repeat(2000)), []],
  ['prompt_max_chars lower than 2000', videoEdit, p('x'.repeat(1501)), ['prompt:TOO_LONG']],
  ['prompt at prompt_max_chars', videoEdit, p('x'.repeat(1500)), []],
  ['earlier form: string max_length', legacyImage, p('x'.repeat(1001)), ['prompt:TOO_LONG']],
  ['prompt not required, absent', customSize, { reference_images: [U] }, []],
  ['prompt on a model with no prompt is left to the server (rule 5)', imageUpscale, { prompt: 'x', resolution: '2K' }, []],
  ['negative_prompt at 500', imageFast, { prompt: 'a', negative_prompt: 'n'.repeat(500) }, []],
  [
    'negative_prompt over 500 (any model)',
    imageUpscale,
    { resolution: '2K', negative_prompt: 'n'.repeat(501) },
    ['negative_prompt:TOO_LONG'],
  ],
  ['negative_prompt not a string', imageFast, { prompt: 'a', negative_prompt: 1 }, ['negative_prompt:INVALID_TYPE']],
  // aspect_ratio
  ['aspect_ratio listed', imageFast, { prompt: 'a', aspect_ratio: '16:9' }, []],
  ['aspect_ratio not listed', imageFast, { prompt: 'a', aspect_ratio: '2:1' }, ['aspect_ratio:INVALID_VALUE']],
  ['aspect_ratio is exact (rule 2)', videoStandard, { prompt: 'a', aspect_ratio: '21:9 1080P' }, ['aspect_ratio:INVALID_VALUE']],
  ['aspect_ratio wrong type', imageFast, { prompt: 'a', aspect_ratio: 1.5 }, ['aspect_ratio:INVALID_TYPE']],
  ['aspect_ratio tagged value in full', videoStandard, { prompt: 'a', aspect_ratio: '21:9 1080p' }, []],
  ['aspect_ratio ratio of a tagged value', videoStandard, { prompt: 'a', aspect_ratio: '21:9' }, []],
  ['aspect_ratio tag matches resolution', videoStandard, { prompt: 'a', aspect_ratio: '21:9', resolution: '1080P' }, []],
  [
    'aspect_ratio tag conflicts with resolution',
    videoStandard,
    { prompt: 'a', aspect_ratio: '21:9', resolution: '720p' },
    ['aspect_ratio:OPTION_NOT_AVAILABLE'],
  ],
  ['aspect_ratio on a model without it', imagePro, { prompt: 'a', aspect_ratio: '1:1' }, ['aspect_ratio:NOT_SUPPORTED']],
  // quality / resolution
  ['quality listed', imagePro, { prompt: 'a', quality: 'high' }, []],
  ['quality is exact: HIGH against a listed high (rule 2)', imagePro, { prompt: 'a', quality: 'HIGH' }, ['quality:INVALID_VALUE']],
  ['quality not listed', imagePro, { prompt: 'a', quality: 'max' }, ['quality:INVALID_VALUE']],
  ['quality on a model with no tiers', imageFast, { prompt: 'a', quality: 'high' }, ['quality:NOT_SUPPORTED']],
  ['resolution 1K against a lowercase 1k list', imagePro, { prompt: 'a', resolution: '1K' }, []],
  ['resolution 2K against a lowercase list', imageUpscale, { resolution: '2K' }, []],
  ['resolution 2k against an uppercase list', upscaleRequiredUpper, { resolution: '2k' }, []],
  ['resolution required', upscaleRequiredUpper, {}, ['resolution:REQUIRED']],
  ['resolution video value', videoStandard, { prompt: 'a', resolution: '2160p' }, ['resolution:INVALID_VALUE']],
  // size
  ['size preset', imagePro, { prompt: 'a', size: '1536x1024' }, []],
  ['size off-list never rounded', imagePro, { prompt: 'a', size: '1530x1020' }, ['size:INVALID_VALUE']],
  ['size bad format', imagePro, { prompt: 'a', size: '1024*1024' }, ['size:INVALID_TYPE']],
  ['size for the default quality only', imagePro, { prompt: 'a', size: '2048x2048' }, ['size:OPTION_NOT_AVAILABLE']],
  ['size for the given quality', imagePro, { prompt: 'a', size: '2048x2048', quality: 'high' }, []],
  ['size beyond the given quality', imagePro, { prompt: 'a', size: '4096x4096', quality: 'high' }, ['size:OPTION_NOT_AVAILABLE']],
  ['size custom when presets_only is false', customSize, { reference_images: [U], size: '1000x700' }, []],
  ['size on a model without sizes', imageFast, { prompt: 'a', size: '1024x1024' }, ['size:NOT_SUPPORTED']],
  // duration
  ['duration enum value', videoStandard, { prompt: 'a', duration: 10 }, []],
  ['duration enum other', videoStandard, { prompt: 'a', duration: 7 }, ['duration:INVALID_VALUE']],
  ['duration as a string', videoStandard, { prompt: 'a', duration: '5' }, ['duration:INVALID_TYPE']],
  ['duration min/max inside', audioVoice, { prompt: 'a', duration: 30 }, []],
  ['duration below min', audioVoice, { prompt: 'a', duration: 1 }, ['duration:OUT_OF_RANGE']],
  ['duration above max', audioVoice, { prompt: 'a', duration: 31 }, ['duration:OUT_OF_RANGE']],
  ['duration fractional', audioVoice, { prompt: 'a', duration: 2.5 }, ['duration:INVALID_TYPE']],
  ['duration on an image model', imageFast, { prompt: 'a', duration: 5 }, ['duration:NOT_SUPPORTED']],
  // audio
  ['audio boolean', videoStandard, { prompt: 'a', audio: false }, []],
  ['audio not boolean', videoStandard, { prompt: 'a', audio: 'yes' }, ['audio:INVALID_TYPE']],
  ['audio on a model without it', imageFast, { prompt: 'a', audio: true }, ['audio:NOT_SUPPORTED']],
  // reference_images
  ['reference_images within max', imagePro, { prompt: 'a', reference_images: [U, U] }, []],
  ['reference_images over the model max', imagePro, { prompt: 'a', reference_images: [U, U, U] }, ['reference_images:OUT_OF_RANGE']],
  ['reference_images over 3 even if the model says 5', customSize, { reference_images: [U, U, U, U] }, ['reference_images:OUT_OF_RANGE']],
  ['reference_images under min', customSize, { reference_images: [] }, ['reference_images:OUT_OF_RANGE']],
  ['reference_images required', customSize, {}, ['reference_images:REQUIRED']],
  ['reference_images not strings', imagePro, { prompt: 'a', reference_images: [1] }, ['reference_images:INVALID_TYPE']],
  ['reference_images not an array', imagePro, { prompt: 'a', reference_images: 'u' }, ['reference_images:INVALID_TYPE']],
  ['reference_images not URLs', imagePro, { prompt: 'a', reference_images: ['ftp://x/y.png'] }, ['reference_images:INVALID_VALUE']],
  // Whether a URL is public https is the service's to judge (the emulator takes loopback http in development).
  ['reference_images over http', imagePro, { prompt: 'a', reference_images: ['http://127.0.0.1/y.png'] }, []],
  ['reference_images not taken', imageFast, { prompt: 'a', reference_images: [U] }, ['reference_images:NOT_SUPPORTED']],
  // number_results
  ['number_results at max', imageFast, { prompt: 'a', number_results: 4 }, []],
  ['number_results over max', imageFast, { prompt: 'a', number_results: 5 }, ['number_results:INVALID_NUMBER_RESULTS']],
  ['number_results zero', imageFast, { prompt: 'a', number_results: 0 }, ['number_results:INVALID_NUMBER_RESULTS']],
  ['number_results fractional', imageFast, { prompt: 'a', number_results: 1.5 }, ['number_results:INVALID_NUMBER_RESULTS']],
  ['number_results over a video max of 1', videoStandard, { prompt: 'a', number_results: 2 }, ['number_results:INVALID_NUMBER_RESULTS']],
  ['earlier form: integer max', legacyImage, { prompt: 'a', number_results: 3 }, ['number_results:INVALID_NUMBER_RESULTS']],
  // seed
  ['seed integer', imageFast, { prompt: 'a', seed: 123 }, []],
  ['seed fractional', imageFast, { prompt: 'a', seed: 1.5 }, ['seed:INVALID_TYPE']],
  ['seed string', imageFast, { prompt: 'a', seed: '1' }, ['seed:INVALID_TYPE']],
  ['earlier form: integer min', legacyImage, { prompt: 'a', seed: -1 }, ['seed:OUT_OF_RANGE']],
  ['seed over 32 bits when the list gives no range (rule 3)', imageFast, { prompt: 'a', seed: 2 ** 32 }, ['seed:OUT_OF_RANGE']],
  ['seed not listed', imageUpscale, { resolution: '2K', seed: 1 }, ['seed:NOT_SUPPORTED']],
  // enhance
  ['enhance where supported', imageFast, { prompt: 'a', enhance: true }, []],
  ['enhance where not supported', imagePro, { prompt: 'a', enhance: true }, ['enhance:ENHANCE_NOT_SUPPORTED']],
  ['enhance false is always fine', imagePro, { prompt: 'a', enhance: false }, []],
  ['enhance not boolean', imageFast, { prompt: 'a', enhance: 'yes' }, ['enhance:INVALID_TYPE']],
  // what is left to the server
  [
    'inputs and unknown future fields are left to the server',
    imageFast,
    { prompt: 'a', input_image: 'https://x/y.png', style_strength: 2 },
    [],
  ],
  ['an input given as a generation id', imageFast, { prompt: 'a', input_image: '6f1c2d3e-0000-4000-8000-000000000001' }, []],
  ['an input that is no https URL (rule 10)', imageFast, { prompt: 'a', input_image: 'ftp://x/y.png' }, ['input_image:INVALID_VALUE']],
  [
    'input_audio takes no generation id',
    audioVoice,
    { prompt: 'a', input_audio: '6f1c2d3e-0000-4000-8000-000000000001' },
    ['input_audio:INVALID_VALUE'],
  ],
  ['an input that is no string', imageFast, { prompt: 'a', input_image: 5 }, ['input_image:INVALID_TYPE']],
  ['estimate not boolean', imageFast, { prompt: 'a', estimate: 1 }, ['estimate:INVALID_TYPE']],
  ['a spec type from a later list is skipped', customSize, { reference_images: [U], style: { any: 1 } }, []],
  // several at once
  [
    'every issue at once',
    imagePro,
    { prompt: '', quality: 'max', size: '1x1', number_results: 9, enhance: true, duration: 5 },
    [
      'prompt:MISSING_PROMPT',
      'size:INVALID_VALUE',
      'quality:INVALID_VALUE',
      'duration:NOT_SUPPORTED',
      'number_results:INVALID_NUMBER_RESULTS',
      'enhance:ENHANCE_NOT_SUPPORTED',
    ],
  ],
];

const codes = (model: Model, params: Record<string, unknown>) =>
  validateParams(model, { model: model.slug, ...params }).map((i) => `${i.field}:${i.code}`);

describe('validateParams table', () => {
  it.each(TABLE)('%s', (_name, model, params, expected) => {
    expect(codes(model, params).sort()).toEqual([...expected].sort());
  });

  it('every issue carries a message naming its field', () => {
    for (const [, model, params] of TABLE) {
      for (const issue of validateParams(model, params)) {
        expect(issue.message).toContain(issue.field === 'prompt' && issue.code === 'MISSING_PROMPT' ? 'prompt' : issue.field);
      }
    }
  });

  it('never throws on malformed models or params', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (model, params) => {
        expect(Array.isArray(validateParams(model as Model, params as object))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('validateParams properties', () => {
  // Single-field violations on one model, each independent of the others.
  const violations: Array<[string, unknown, string]> = [
    ['quality', 'max', 'quality:INVALID_VALUE'],
    ['resolution', '8k', 'resolution:INVALID_VALUE'],
    ['reference_images', ['1', '2', '3'], 'reference_images:OUT_OF_RANGE'],
    ['number_results', 7, 'number_results:INVALID_NUMBER_RESULTS'],
    ['seed', 0.5, 'seed:INVALID_TYPE'],
    ['enhance', true, 'enhance:ENHANCE_NOT_SUPPORTED'],
    ['duration', 5, 'duration:NOT_SUPPORTED'],
    ['negative_prompt', 'n'.repeat(501), 'negative_prompt:TOO_LONG'],
    ['audio', true, 'audio:NOT_SUPPORTED'],
  ];
  const valid: Record<string, unknown> = {
    prompt: 'a',
    size: '1024x1024',
    reference_images: [U],
    number_results: 2,
    seed: 7,
    resolution: '1K',
  };

  it('reports exactly the union of the issues of any combination of violations', () => {
    fc.assert(
      fc.property(fc.subarray(violations), (picked) => {
        const params = { ...valid, ...Object.fromEntries(picked.map(([k, v]) => [k, v])) };
        expect(codes(imagePro, params).sort()).toEqual(picked.map(([, , c]) => c).sort());
      }),
    );
  });

  it('accepts a resolution, in either case, exactly when a size of its tag is available at the quality (rule 4)', () => {
    const size = imagePro.params.size!;
    fc.assert(
      fc.property(
        fc.constantFrom(...(imagePro.params.quality!.values as string[])),
        fc.constantFrom(...(imagePro.params.resolution!.values as string[])),
        fc.boolean(),
        (quality, resolution, upper) => {
          const r = upper ? resolution.toUpperCase() : resolution;
          const ok = size.options!.some((o) => o.tag === resolution && size.values_by_quality![quality]!.includes(o.size));
          expect(codes(imagePro, { prompt: 'a', quality, resolution: r })).toEqual(ok ? [] : ['resolution:OPTION_NOT_AVAILABLE']);
        },
      ),
    );
  });

  it('accepts a size exactly when the quality lists it', () => {
    const byQuality = imagePro.params.size!.values_by_quality!;
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(byQuality)),
        fc.constantFrom(...(imagePro.params.size!.values as string[])),
        (quality, size) => {
          const ok = byQuality[quality]!.includes(size);
          expect(codes(imagePro, { prompt: 'a', quality, size })).toEqual(ok ? [] : ['size:OPTION_NOT_AVAILABLE']);
        },
      ),
    );
  });

  it('accepts a min/max duration exactly inside the range', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 40 }), (duration) => {
        const ok = duration >= 2 && duration <= 30;
        expect(codes(audioVoice, { prompt: 'a', duration })).toEqual(ok ? [] : ['duration:OUT_OF_RANGE']);
      }),
    );
  });

  it('accepts a prompt exactly up to the model limit in code points', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1600 }), fc.constantFrom('x', emoji, 'é'), (n, ch) => {
        expect(codes(videoEdit, { prompt: ch.repeat(n) })).toEqual(n <= 1500 ? [] : ['prompt:TOO_LONG']);
      }),
      { numRuns: 50 },
    );
  });
});
