import { quotePrice } from '@mediagen/core';
import { catalog, type RunningEmulator } from '@mediagen/emulator';
import { notFound, redirect } from 'next/navigation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerationActions } from '../src/server';
import { startService } from './support/emulator';

/** Run twice by vitest.config.ts: against Next 16, and with `next/navigation` from Next 15. */
describe('createGenerationActions against a real emulator', () => {
  let emulator: RunningEmulator;
  let service: Awaited<ReturnType<typeof startService>>;
  beforeAll(async () => {
    service = await startService();
    emulator = service.emulator;
  });
  afterAll(() => emulator?.close());

  const actions = () => createGenerationActions({ client: service.client, allow: ['image-fast', 'image-pro', 'video-standard'] });

  it('submits, and a second submit with the same idempotency key bills once', async () => {
    const { submitGeneration } = actions();
    const before = await service.reserves();
    const params = { model: 'image-fast', prompt: 'a lighthouse', aspect_ratio: '16:9' };
    const first = await submitGeneration(params, { idempotencyKey: 'form-1' });
    const second = await submitGeneration(params, { idempotencyKey: 'form-1' });
    expect(first.error).toBeUndefined();
    expect(first.data).toMatchObject({ status: 'pending', model: 'image-fast', credits_estimate: 4 });
    expect(second.data?.generation_id).toBe(first.data?.generation_id);
    expect((await service.reserves()) - before).toBe(1);
    // Plain data a server action can serialise: nothing but the wire fields.
    expect(JSON.parse(JSON.stringify(first.data))).toEqual(first.data);
  });

  it('estimates without charging, and reads a generation back', async () => {
    const { estimateGeneration, submitGeneration, getGeneration } = actions();
    const params = { model: 'image-pro', prompt: 'x', quality: 'high' };
    const before = await service.reserves();
    const estimate = await estimateGeneration(params);
    const model = catalog.find((m) => m.slug === 'image-pro')!;
    expect(estimate.data?.credits_estimate).toBe(quotePrice(model, params).credits);
    expect(await service.reserves()).toBe(before);
    const { data } = await submitGeneration({ model: 'image-fast', prompt: 'read me back' });
    const read = await getGeneration(data!.generation_id);
    expect(read.data).toMatchObject({ generation_id: data!.generation_id, model: 'image-fast' });
  });

  it('returns errors as values: models not allowed, params not accepted, params the schema refuses', async () => {
    const { submitGeneration } = actions();
    expect((await submitGeneration({ model: 'audio-voice', prompt: 'x' })).error).toMatchObject({ code: 'MODEL_NOT_ALLOWED' });
    expect((await submitGeneration({ model: 'image-fast', prompt: 'x', estimate: true })).error).toMatchObject({
      code: 'INVALID_BODY',
      field: 'estimate',
    });
    expect((await submitGeneration({ model: 'image-fast', prompt: 'x', aspect_ratio: '7:3' })).error).toMatchObject({
      code: 'PARAMS_INVALID',
      field: 'aspect_ratio',
    });
    expect((await submitGeneration({ model: 'image-fast', prompt: 'x', quality: 'high' })).error).toMatchObject({
      code: 'PARAMS_INVALID',
      field: 'quality',
    });
    for (const bad of [null, 'image-fast', [], { prompt: 'no model' }]) {
      const { error } = await submitGeneration(bad);
      expect(error?.code).toBe('INVALID_BODY');
      expect(typeof error?.message).toBe('string');
    }
    const service = await submitGeneration({ model: 'image-fast', prompt: 'x [[blocked]]' });
    expect(service.error).toMatchObject({
      code: 'CONTENT_POLICY_VIOLATION',
      next: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it('a generation of a model the app does not offer is not found', async () => {
    const { getGeneration } = actions();
    const other = await service.client.generations.create({ model: 'audio-voice', prompt: 'hidden' });
    expect((await getGeneration(other.generation_id)).error).toMatchObject({ code: 'NOT_FOUND' });
    expect((await getGeneration('x'.repeat(1000))).error).toMatchObject({ code: 'NOT_FOUND' });
    expect((await getGeneration(42)).error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it("Next's redirect() and notFound() pass through; other thrown errors are masked", async () => {
    const redirecting = createGenerationActions({ client: service.client, onSubmitted: () => redirect('/done') });
    await expect(redirecting.submitGeneration({ model: 'image-fast', prompt: 'x' })).rejects.toMatchObject({
      digest: expect.stringMatching(/^NEXT_REDIRECT;/),
    });
    const missing = createGenerationActions({ client: service.client, onSubmitted: () => notFound() });
    await expect(missing.submitGeneration({ model: 'image-fast', prompt: 'x' })).rejects.toMatchObject({
      digest: expect.stringMatching(/NEXT_HTTP_ERROR_FALLBACK;404|NEXT_NOT_FOUND/),
    });
    const failing = createGenerationActions({
      client: service.client,
      onSubmitted: () => {
        throw new Error('db password=hunter2 rejected');
      },
    });
    const { error } = await failing.submitGeneration({ model: 'image-fast', prompt: 'x' });
    expect(error).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal error.', next: 'Retry later.', request_id: null });
  });
});
