import { PARAM_KEYS } from '@mediagen/core/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emu, emulator, expectErrorShape } from './helpers.js';

let emu: Emu;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.close());

async function expectCode(body: Record<string, unknown> | string, status: number, code: string, field?: string) {
  const r = await emu.call('POST', '/api/v1/generate', { body: typeof body === 'string' ? body : { estimate: true, ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error).toBe(code);
  expectErrorShape(r);
  if (field !== undefined) expect(r.body.details?.field).toBe(field);
  return r;
}

async function expectOk(body: Record<string, unknown>) {
  const r = await emu.submit({ estimate: true, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r;
}

describe('body', () => {
  it('INVALID_BODY for unparseable JSON, non-objects, unknown fields, wrong types', async () => {
    await expectCode('{nope', 422, 'INVALID_BODY', 'body');
    await expectCode('[1,2]', 422, 'INVALID_BODY', 'body');
    await expectCode({ model: 'image-fast', prompt: 'x', colour: 'red' }, 422, 'INVALID_BODY', 'colour');
    await expectCode({ prompt: 'x' }, 422, 'INVALID_BODY', 'model');
    await expectCode({ model: 'image-fast', prompt: 5 }, 422, 'INVALID_BODY', 'prompt');
    await expectCode({ model: 'image-fast', prompt: 'x', enhance: 'yes' }, 422, 'INVALID_BODY', 'enhance');
  });

  it('413 INVALID_BODY for an oversized body', async () => {
    const r = await emu.call('POST', '/api/v1/generate', { body: { model: 'image-fast', prompt: 'x'.repeat(1_100_000) } });
    expect(r.status).toBe(413);
    expect(r.body.error).toBe('INVALID_BODY');
  });

  it('UNKNOWN_MODEL, MODEL_NOT_API_SUPPORTED', async () => {
    const u = await expectCode({ model: 'nope', prompt: 'x' }, 422, 'UNKNOWN_MODEL');
    expect(u.body.model).toBe('nope');
    const l = await expectCode({ model: 'lipsync-multi', prompt: 'x' }, 422, 'MODEL_NOT_API_SUPPORTED');
    expect(l.body.model).toBe('lipsync-multi');
  });
});

describe('text limits in code points', () => {
  it('prompt <= 2000, counted in code points, not UTF-16 units', async () => {
    await expectOk({ model: 'image-fast', prompt: '😀'.repeat(2000) });
    await expectCode({ model: 'image-fast', prompt: 'a'.repeat(2001) }, 422, 'INVALID_BODY', 'prompt');
  });

  it("the model's lower prompt_max_chars applies", async () => {
    await expectOk({ model: 'audio-voice', prompt: 'a'.repeat(1000) });
    await expectCode({ model: 'audio-voice', prompt: 'a'.repeat(1001) }, 422, 'INVALID_BODY', 'prompt');
    await expectCode({ model: 'legacy-image', prompt: 'a'.repeat(1001) }, 422, 'INVALID_BODY', 'prompt');
  });

  it('negative_prompt <= 500 on every model, even where it is ignored', async () => {
    await expectOk({ model: 'text-writer', prompt: 'x', negative_prompt: 'é'.repeat(500) });
    await expectCode({ model: 'text-writer', prompt: 'x', negative_prompt: 'a'.repeat(501) }, 422, 'INVALID_BODY', 'negative_prompt');
  });

  it('MISSING_PROMPT when a prompt is needed; a prompt-less model needs none', async () => {
    await expectCode({ model: 'image-fast' }, 422, 'MISSING_PROMPT');
    await expectCode({ model: 'image-fast', prompt: '   ' }, 422, 'MISSING_PROMPT');
    await expectOk({ model: 'image-upscale', input_image: 'https://example.com/a.png' });
  });
});

describe('params against the model spec', () => {
  it('aspect_ratio from the model list only', async () => {
    await expectOk({ model: 'image-fast', prompt: 'x', aspect_ratio: '16:9' });
    await expectCode({ model: 'image-fast', prompt: 'x', aspect_ratio: '2:1' }, 422, 'INVALID_BODY', 'aspect_ratio');
  });

  it('params the model does not take are refused (quality, duration, size, resolution, audio)', async () => {
    await expectCode({ model: 'image-fast', prompt: 'x', quality: 'high' }, 422, 'INVALID_BODY', 'quality');
    await expectCode({ model: 'image-fast', prompt: 'x', duration: 5 }, 422, 'INVALID_BODY', 'duration');
    await expectCode({ model: 'image-fast', prompt: 'x', size: '1024x1024' }, 422, 'INVALID_BODY', 'size');
    await expectCode({ model: 'image-fast', prompt: 'x', resolution: '1K' }, 422, 'INVALID_BODY', 'resolution');
    await expectCode({ model: 'image-fast', prompt: 'x', audio: true }, 422, 'INVALID_BODY', 'audio');
    await expectCode({ model: 'image-fast', prompt: 'x', reference_images: [] }, 422, 'INVALID_BODY', 'reference_images');
  });

  it('size: presets only, never rounded; values_by_quality gives OPTION_NOT_AVAILABLE', async () => {
    await expectOk({ model: 'image-pro', prompt: 'x', size: '1536x1024' });
    await expectCode({ model: 'image-pro', prompt: 'x', size: '1000x1000' }, 422, 'INVALID_BODY', 'size');
    await expectCode({ model: 'image-pro', prompt: 'x', size: 'big' }, 422, 'INVALID_BODY', 'size');
    await expectCode({ model: 'image-pro', prompt: 'x', size: '2048x2048' }, 400, 'OPTION_NOT_AVAILABLE', 'size');
    await expectOk({ model: 'image-pro', prompt: 'x', size: '2048x2048', quality: 'high' });
    await expectCode({ model: 'image-pro', prompt: 'x', size: '4096x4096', quality: 'high' }, 400, 'OPTION_NOT_AVAILABLE', 'size');
    await expectOk({ model: 'image-pro', prompt: 'x', size: '4096x4096', quality: 'ultra' });
  });

  it('quality from the enum; resolution lowercase or uppercase, matched to the size', async () => {
    await expectCode({ model: 'image-pro', prompt: 'x', quality: 'max' }, 422, 'INVALID_BODY', 'quality');
    await expectOk({ model: 'image-pro', prompt: 'x', resolution: '2k', quality: 'high' });
    await expectOk({ model: 'image-pro', prompt: 'x', resolution: '2K', quality: 'high' });
    await expectCode({ model: 'image-pro', prompt: 'x', resolution: '8k' }, 422, 'INVALID_BODY', 'resolution');
    await expectCode({ model: 'image-pro', prompt: 'x', resolution: '4k', quality: 'standard' }, 400, 'OPTION_NOT_AVAILABLE', 'resolution');
    await expectCode(
      { model: 'image-pro', prompt: 'x', resolution: '1k', size: '2048x2048', quality: 'high' },
      400,
      'OPTION_NOT_AVAILABLE',
      'resolution',
    );
  });

  it('reference_images: URLs, model max 2, never above 3', async () => {
    await expectOk({ model: 'image-pro', prompt: 'x', reference_images: ['https://a.example/1.png', 'https://a.example/2.png'] });
    await expectCode(
      { model: 'image-pro', prompt: 'x', reference_images: ['https://a/1', 'https://a/2', 'https://a/3'] },
      422,
      'INVALID_BODY',
      'reference_images',
    );
    await expectCode({ model: 'image-pro', prompt: 'x', reference_images: ['ftp://a/1'] }, 422, 'INVALID_BODY', 'reference_images');
    await expectCode({ model: 'image-pro', prompt: 'x', reference_images: 'https://a/1' }, 422, 'INVALID_BODY', 'reference_images');
  });

  it('number_results: INVALID_NUMBER_RESULTS outside the model range', async () => {
    await expectOk({ model: 'image-fast', prompt: 'x', number_results: 4 });
    for (const n of [0, 5, 1.5, '2'])
      await expectCode({ model: 'image-fast', prompt: 'x', number_results: n }, 422, 'INVALID_NUMBER_RESULTS', 'number_results');
    await expectCode({ model: 'video-standard', prompt: 'x', number_results: 2 }, 422, 'INVALID_NUMBER_RESULTS');
    await expectCode({ model: 'legacy-image', prompt: 'x', number_results: 3 }, 422, 'INVALID_NUMBER_RESULTS');
    await expectOk({ model: 'legacy-image', prompt: 'x', number_results: 2 });
  });

  it('duration: enum on video, range on audio, whole seconds', async () => {
    await expectOk({ model: 'video-standard', prompt: 'x', duration: 10 });
    await expectCode({ model: 'video-standard', prompt: 'x', duration: 7 }, 422, 'INVALID_BODY', 'duration');
    await expectOk({ model: 'audio-voice', prompt: 'x', duration: 30 });
    await expectCode({ model: 'audio-voice', prompt: 'x', duration: 31 }, 422, 'INVALID_BODY', 'duration');
    await expectCode({ model: 'audio-voice', prompt: 'x', duration: 1 }, 422, 'INVALID_BODY', 'duration');
    await expectCode({ model: 'audio-voice', prompt: 'x', duration: 2.5 }, 422, 'INVALID_BODY', 'duration');
  });

  it('video: resolution subset; an aspect ratio carrying a resolution tag; the video matrix', async () => {
    await expectOk({ model: 'video-standard', prompt: 'x', resolution: '1080p' });
    await expectCode({ model: 'video-standard', prompt: 'x', resolution: '2160p' }, 422, 'INVALID_BODY', 'resolution');
    await expectOk({ model: 'video-standard', prompt: 'x', aspect_ratio: '21:9 1080p' });
    await expectCode(
      { model: 'video-standard', prompt: 'x', aspect_ratio: '21:9 1080p', resolution: '720p' },
      400,
      'OPTION_NOT_AVAILABLE',
      'aspect_ratio',
    );
    // The bare ratio of a tagged listing is the same option (the SDK's validation agrees).
    await expectOk({ model: 'video-standard', prompt: 'x', aspect_ratio: '21:9' });
    await expectCode(
      { model: 'video-standard', prompt: 'x', aspect_ratio: '21:9', resolution: '720p' },
      400,
      'OPTION_NOT_AVAILABLE',
      'aspect_ratio',
    );
    await expectCode({ model: 'video-standard', prompt: 'x', audio: 'on' }, 422, 'INVALID_BODY', 'audio');
  });

  it('mode-specific values give OPTION_NOT_AVAILABLE (image-to-video is 5 s only)', async () => {
    await expectOk({ model: 'video-standard', prompt: 'x', input_image: 'https://a.example/f.png', duration: 5 });
    await expectCode(
      { model: 'video-standard', prompt: 'x', input_image: 'https://a.example/f.png', duration: 10 },
      400,
      'OPTION_NOT_AVAILABLE',
      'duration',
    );
  });

  it('seed: integer in range (legacy min/max too)', async () => {
    await expectOk({ model: 'image-fast', prompt: 'x', seed: 42 });
    await expectCode({ model: 'image-fast', prompt: 'x', seed: -1 }, 422, 'INVALID_BODY', 'seed');
    await expectCode({ model: 'image-fast', prompt: 'x', seed: 1.5 }, 422, 'INVALID_BODY', 'seed');
    await expectCode({ model: 'legacy-image', prompt: 'x', seed: 2 ** 33 }, 422, 'INVALID_BODY', 'seed');
  });

  it('inputs: https URL or own completed generation; input_video and missing inputs', async () => {
    await expectCode(
      { model: 'image-fast', prompt: 'x', input_image: 'http://insecure.example/a.png' },
      422,
      'INVALID_BODY',
      'input_image',
    );
    await expectCode(
      { model: 'image-fast', prompt: 'x', input_image: '0b3c5f8e-6a52-4b43-9a51-3a8f0d2c1e77' },
      422,
      'INVALID_BODY',
      'input_image',
    );
    await expectCode({ model: 'text-writer', prompt: 'x', input_image: 'https://a.example/a.png' }, 422, 'INVALID_BODY', 'input_image');
    await expectCode({ model: 'video-edit', prompt: 'x', input_video: 'https://a.example/v.mp4' }, 422, 'INPUT_VIDEO_NOT_SUPPORTED');
    await expectCode({ model: 'image-upscale' }, 422, 'MODEL_CONTRACT_VIOLATION', 'input_image');
    const g = await emu.submit({ model: 'image-fast', prompt: 'source', seed: 1 });
    await emu.wait(g.body.generation_id);
    await expectOk({ model: 'image-upscale', input_image: g.body.generation_id });
  });

  it('ENHANCE_NOT_SUPPORTED is 400', async () => {
    await expectCode({ model: 'image-pro', prompt: 'x', enhance: true }, 400, 'ENHANCE_NOT_SUPPORTED');
    await expectOk({ model: 'image-fast', prompt: 'x', enhance: true });
  });

  it('[[blocked]] is refused at submit with 400 CONTENT_POLICY_VIOLATION, nothing charged', async () => {
    const before = (await emu.control('GET', '/accounts/acct_pro')).body.balance;
    const r = await emu.call('POST', '/api/v1/generate', { body: { model: 'image-fast', prompt: 'a [[blocked]] cat' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'CONTENT_POLICY_VIOLATION', category: 'prompt' });
    expectErrorShape(r);
    expect((await emu.control('GET', '/accounts/acct_pro')).body.balance).toBe(before);
  });
});

describe('model list', () => {
  it('every shape the spec describes', async () => {
    const r = await emu.call('GET', '/api/v1/models');
    const bySlug = Object.fromEntries(r.body.models.map((m: { slug: string }) => [m.slug, m]));
    for (const s of [
      'image-fast',
      'image-pro',
      'video-standard',
      'video-edit',
      'audio-voice',
      'text-writer',
      'image-upscale',
      'legacy-image',
      'lipsync-multi',
      'mesh-3d',
    ]) {
      expect(bySlug[s], s).toBeDefined();
      expect(typeof bySlug[s].credits_from).toBe('number');
      expect(bySlug[s].example_request.model).toBe(s);
    }
    expect(bySlug['image-pro'].params.size.presets_only).toBe(true);
    expect(bySlug['image-pro'].credits_by_quality).toEqual({ standard: 10, high: 20, ultra: 40 });
    expect(bySlug['image-pro'].params.resolution.values).toEqual(['1k', '2k', '4k']);
    expect(bySlug['video-standard'].video_matrix.dimensions['1080p']['16:9']).toBe('1920x1080');
    expect(bySlug['video-standard'].params.audio.default).toBe(true);
    expect(bySlug['legacy-image'].params.number_results.type).toBe('integer');
    expect(bySlug['legacy-image'].params.prompt.max_length).toBe(1000);
    expect(bySlug['mesh-3d'].category).toBe('threed');
    expect(bySlug['image-upscale'].prompt_max_chars).toBeUndefined();
    expect(bySlug['image-upscale'].category).toBe('utility');
    for (const m of r.body.models) {
      for (const k of Object.keys(m.params)) {
        expect(PARAM_KEYS).toContain(k);
      }
    }
  });
});
