/**
 * The provider as a Next.js developer uses it: through `generateImage` from `ai`, against the
 * emulator in-process. Billing is read from the emulator's ledger, never inferred.
 */
import { APICallError, InvalidArgumentError, LoadAPIKeyError, NoSuchModelError, UnsupportedFunctionalityError } from '@ai-sdk/provider';
import { MediaGenClient } from '@mediagen/core';
import { generateImage } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMediaGen } from '../src/index.js';
import { type Fixture, fixture, KEY } from './support.js';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
let f: Fixture | undefined;
afterEach(async () => {
  await f?.emu.close();
  f = undefined;
  vi.unstubAllEnvs();
});

describe('generateImage with mediagen.image()', () => {
  it('n images from one generation, as PNG bytes, with the generation id and credits in providerMetadata', async () => {
    f = fixture();
    const result = await generateImage({
      model: f.mediagen.image('image-fast'),
      prompt: 'a lighthouse',
      aspectRatio: '16:9',
      n: 2,
      seed: 42,
    });
    expect(result.images.length).toBe(2);
    for (const image of result.images) {
      expect(image.mediaType).toBe('image/png');
      expect([...image.uint8Array.subarray(0, 8)]).toEqual(PNG);
    }
    expect(result.warnings).toEqual([]);
    const reserves = await f.ledger('reserve');
    expect(reserves.length).toBe(1);
    const meta = result.providerMetadata.mediagen as { images: Array<{ generationId: string; creditsUsed: number; index: number }> };
    expect(meta.images.map((m) => [m.generationId, m.index, m.creditsUsed])).toEqual([
      [reserves[0]?.generation_id, 0, 8],
      [reserves[0]?.generation_id, 1, 8],
    ]);
    expect(result.images[1]?.providerMetadata?.mediagen).toMatchObject({ generationId: reserves[0]?.generation_id, index: 1 });
    expect(result.responses[0]?.modelId).toBe('image-fast');
    // The same seed and params give the same bytes (the contract's determinism), image by image.
    const again = await generateImage({
      model: f.mediagen.image('image-fast'),
      prompt: 'a lighthouse',
      aspectRatio: '16:9',
      n: 2,
      seed: 42,
    });
    expect(again.images.map((i) => i.base64)).toEqual(result.images.map((i) => i.base64));
  });

  it("settings the model has no param for are AI SDK warnings, not silent drops; the model's own are sent", async () => {
    f = fixture();
    const fast = await generateImage({ model: f.mediagen.image('image-fast'), prompt: 'x', size: '1024x1024' });
    expect(fast.warnings).toEqual([{ type: 'unsupported', feature: 'size', details: expect.stringContaining('use aspectRatio') }]);
    const pro = await generateImage({
      model: f.mediagen.image('image-pro'),
      prompt: 'x',
      size: '1024x1024',
      aspectRatio: '1:1',
      providerOptions: { mediagen: { quality: 'high' } },
    });
    expect(pro.warnings.map((w) => (w as { feature: string }).feature)).toEqual(['aspectRatio']);
    expect(pro.images.length).toBe(1);
    const reserves = await f.ledger('reserve');
    // image-pro at quality high is 20 credits (10 at standard: its credits_by_quality), so quality reached the service.
    expect(reserves.map((r) => -r.amount)).toEqual([4, 20]);
  });

  it("n above the model's number_results max is split by the AI SDK into several generations, each billed once", async () => {
    f = fixture();
    const result = await generateImage({ model: f.mediagen.image('image-fast'), prompt: 'x', n: 6 });
    expect(result.images.length).toBe(6);
    const reserves = await f.ledger('reserve');
    expect(reserves.map((r) => -r.amount).sort()).toEqual([16, 8]);
    const ids = (result.providerMetadata.mediagen as { images: Array<{ generationId: string }> }).images.map((m) => m.generationId);
    expect(new Set(ids)).toEqual(new Set(reserves.map((r) => r.generation_id)));
  });

  it('a failed generation is an APICallError with the service code; the AI SDK does not resend it (one charge, refunded)', async () => {
    f = fixture();
    const e = await generateImage({ model: f.mediagen.image('image-fast'), prompt: 'x [[fail:model_unavailable]]' }).catch(
      (x: unknown) => x,
    );
    expect(APICallError.isInstance(e)).toBe(true);
    const error = e as APICallError;
    expect(error.isRetryable).toBe(false);
    expect(error.data).toMatchObject({ code: 'model_unavailable', retryable: true, idempotencyKey: expect.any(String) });
    expect((await f.ledger('reserve')).length).toBe(1);
    expect((await f.ledger('refund')).length).toBe(1);
  });

  it("service errors map to APICallError with the HTTP status and the contract's body", async () => {
    f = fixture({ balance: 3 });
    const e = (await generateImage({ model: f.mediagen.image('image-fast'), prompt: 'x' }).catch((x: unknown) => x)) as APICallError;
    expect(APICallError.isInstance(e)).toBe(true);
    expect([e.statusCode, (e.data as { code: string }).code, e.isRetryable]).toEqual([402, 'INSUFFICIENT_CREDITS', false]);
    expect(JSON.parse(e.responseBody ?? '{}')).toMatchObject({ error: 'INSUFFICIENT_CREDITS', balance: 3, needed: 4 });
    expect(e.url).toBe(`${f.emu.url}/api/v1/generate`);
    const blocked = (await generateImage({ model: f.mediagen.image('image-fast'), prompt: '[[blocked]]' }).catch(
      (x: unknown) => x,
    )) as APICallError;
    expect([blocked.statusCode, (blocked.data as { code: string }).code]).toEqual([400, 'CONTENT_POLICY_VIOLATION']);
  });

  it('params the live schema refuses are InvalidArgumentError before anything is sent', async () => {
    f = fixture();
    const model = f.mediagen.image('image-fast');
    await expect(generateImage({ model, prompt: 'x', aspectRatio: '7:3' })).rejects.toSatisfy(InvalidArgumentError.isInstance);
    await expect(generateImage({ model, prompt: 'x', providerOptions: { mediagen: { quality: 'high' } } })).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
    await expect(generateImage({ model, prompt: 'x', providerOptions: { mediagen: { qualty: 'high' } } })).rejects.toThrow(/qualty/);
    await expect(generateImage({ model, prompt: 'x', providerOptions: { mediagen: { model: 'image-pro' } } })).rejects.toSatisfy(
      InvalidArgumentError.isInstance,
    );
    expect(await f.ledger('reserve')).toEqual([]);
  });

  it('unknown models, a video model as an image model, file data and a missing key: the AI SDK error types', async () => {
    f = fixture();
    await expect(generateImage({ model: f.mediagen.image('nope'), prompt: 'x' })).rejects.toSatisfy(NoSuchModelError.isInstance);
    await expect(generateImage({ model: f.mediagen.image('video-standard'), prompt: 'x' })).rejects.toSatisfy(NoSuchModelError.isInstance);
    await expect(
      generateImage({ model: f.mediagen.image('image-fast'), prompt: { text: 'x', images: [new Uint8Array(PNG)] } }),
    ).rejects.toSatisfy(UnsupportedFunctionalityError.isInstance);
    expect(() => f?.mediagen.languageModel('x')).toThrow(NoSuchModelError);
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    const keyless = createMediaGen({ baseUrl: f.emu.url, fetch: f.emu.fetch });
    await expect(generateImage({ model: keyless.image('image-fast'), prompt: 'x' })).rejects.toSatisfy(LoadAPIKeyError.isInstance);
  });
});

describe('billing safety', () => {
  it("a submit whose answer is lost is resent by the client with the same key: one generation, whatever the AI SDK's maxRetries", async () => {
    f = fixture();
    await f.emu.faults.add([
      { endpoint: 'generate', when: 'after', reset: true },
      { endpoint: 'generate', when: 'after', status: 500 },
    ]);
    const result = await generateImage({ model: f.mediagen.image('image-fast'), prompt: 'x', maxRetries: 5 });
    expect(result.images.length).toBe(1);
    expect((await f.ledger('reserve')).length).toBe(1);
  });

  it('when the client gives up, the AI SDK does not resend under a new key (which would bill again)', async () => {
    f = fixture({ maxRetries: 1 });
    await f.emu.faults.add({ endpoint: 'generate', status: 500, count: 100 });
    const e = (await generateImage({ model: f.mediagen.image('image-fast'), prompt: 'x', maxRetries: 3 }).catch(
      (x: unknown) => x,
    )) as APICallError;
    expect([e.statusCode, e.isRetryable, (e.data as { retryable: boolean }).retryable]).toEqual([500, false, true]);
    // The client's 2 attempts consumed 2 faults; an AI SDK retry would have consumed more.
    expect((await f.emu.faults.list())[0]?.count).toBe(98);
  });

  it("a caller's idempotencyKey names one generation: the same key again returns it unbilled; a split n with one key is refused", async () => {
    f = fixture();
    const call = () =>
      generateImage({ model: f!.mediagen.image('image-fast'), prompt: 'x', providerOptions: { mediagen: { idempotencyKey: 'order-17' } } });
    const first = await call();
    const second = await call();
    const idOf = (r: typeof first) => (r.providerMetadata.mediagen as { images: Array<{ generationId: string }> }).images[0]?.generationId;
    expect(idOf(second)).toBe(idOf(first));
    expect((await f.ledger('reserve')).length).toBe(1);
    await expect(
      generateImage({
        model: f.mediagen.image('image-fast'),
        prompt: 'y',
        n: 5,
        providerOptions: { mediagen: { idempotencyKey: 'order-18' } },
      }),
    ).rejects.toSatisfy(InvalidArgumentError.isInstance);
  });

  it("the AI SDK's abort signal stops the wait; the generation is billed once and finishes on its own", async () => {
    const controller = new AbortController();
    // Abort as soon as the submit's 202 arrives: the event, not a timer.
    const clientFetch: typeof fetch = async (input, init) => {
      const res = await (f as Fixture).emu.fetch(input, init);
      if (init?.method === 'POST' && res.status === 202) controller.abort();
      return res;
    };
    f = fixture({ clientFetch });
    const e = await generateImage({
      model: f.mediagen.image('image-fast'),
      prompt: 'x',
      abortSignal: controller.signal,
      providerOptions: { mediagen: { pollIntervalMs: 60_000 } },
    }).catch((x: unknown) => x);
    expect((e as Error).name).toBe('AbortError');
    const reserves = await f.ledger('reserve');
    expect(reserves.length).toBe(1);
    await f.emu.deliveries.settled(reserves[0]?.generation_id as string);
    expect(
      (
        await new MediaGenClient({ apiKey: KEY, baseUrl: f.emu.url, fetch: f.emu.fetch }).generations.get(
          reserves[0]?.generation_id as string,
        )
      ).status,
    ).toBe('completed');
  });
});
