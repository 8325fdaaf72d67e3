import { memorySource } from '@mediagen/conformance';
import { quotePrice } from '@mediagen/core';
import { createMediaGenHandler, type MediaGenHandlerOptions } from '@mediagen/core/server';
import { catalog } from '@mediagen/emulator';
import fc from 'fast-check';
import { notFound, redirect } from 'next/navigation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerationActions } from '../src/server';
import { startService } from './support/emulator';
import { asRequest } from './support/next-headers';

const COOKIE = 'studio_user';
/** The app's identify, as the route handler is given it: the user from a cookie. */
const identify = (request: Request) => new RegExp(`(?:^|;\\s*)${COOKIE}=([^;]+)`).exec(request.headers.get('cookie') ?? '')?.[1];
/** Runs `fn` as a server action called by `user`'s browser (their cookie in the request headers). */
const as = <T>(user: string | undefined, fn: () => Promise<T>) => asRequest(user ? { cookie: `${COOKIE}=${user}` } : {}, fn);

/** Run three times by vitest.config.ts: against Next 16, with `next/navigation` from Next 15, and with Next 14's (no `unstable_rethrow`). */
describe('createGenerationActions on the handler’s rules, against a real emulator', () => {
  let service: Awaited<ReturnType<typeof startService>>;
  beforeAll(async () => void (service = await startService()));
  afterAll(() => service?.emulator.close());

  function setup(extra: Partial<MediaGenHandlerOptions> = {}) {
    const submitted: string[] = [];
    const source = memorySource();
    const handler = createMediaGenHandler({
      client: service.client,
      basePath: '/api',
      identify,
      source,
      allowModels: ['image-fast', 'image-pro', 'video-standard'],
      onSubmitted: (s) => void submitted.push(s.generation_id),
      ...extra,
    });
    return { actions: createGenerationActions({ handler, identify }), submitted, source, handler };
  }

  it('a replay with the same key from the same user is the same generation, billed and recorded once; another user gets their own', async () => {
    const { actions, submitted, source } = setup();
    const before = await service.reserves();
    const params = { model: 'image-fast', prompt: 'a lighthouse', aspect_ratio: '16:9' };
    const first = await as('ada', () => actions.submitGeneration(params, { idempotencyKey: 'form-1' }));
    const again = await as('ada', () => actions.submitGeneration(params, { idempotencyKey: 'form-1' }));
    expect(first.error).toBeUndefined();
    expect(first.data).toMatchObject({ status: 'pending', model: 'image-fast', credits_estimate: 4 });
    expect(again.data?.generation_id).toBe(first.data?.generation_id);
    expect(submitted).toEqual([first.data!.generation_id]);
    expect(source.entries.map((e) => [e.owner, e.submitted.generation_id])).toEqual([['ada', first.data!.generation_id]]);
    expect((await service.reserves()) - before).toBe(1);

    const bob = await as('bob', () => actions.submitGeneration(params, { idempotencyKey: 'form-1' }));
    expect(bob.data?.generation_id).toEqual(expect.any(String));
    expect(bob.data?.generation_id).not.toBe(first.data?.generation_id);
    expect(submitted).toEqual([first.data!.generation_id, bob.data!.generation_id]);
    expect((await service.reserves()) - before).toBe(2);
    // Plain data a server action can serialise: nothing but the wire fields.
    expect(JSON.parse(JSON.stringify(first.data))).toEqual(first.data);
  });

  it('an action and the route with one key from one user are one generation, recorded once (one handler, one rule set)', async () => {
    const { actions, submitted, handler } = setup();
    const params = { model: 'image-fast', prompt: 'both ways' };
    const viaAction = await as('ada', () => actions.submitGeneration(params, { idempotencyKey: 'shared-key' }));
    const viaRoute = await handler(
      new Request('http://app.test/api/generations', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'shared-key', cookie: `${COOKIE}=ada` },
        body: JSON.stringify(params),
      }),
    );
    expect(viaRoute.status).toBe(202);
    expect(((await viaRoute.json()) as { generation_id: string }).generation_id).toBe(viaAction.data!.generation_id);
    expect(submitted).toEqual([viaAction.data!.generation_id]);
  });

  it("reads and lists only the user's own generations: another user gets NOT_FOUND / an empty list, no user USER_UNKNOWN", async () => {
    const { actions } = setup();
    const mine = await as('ada', () => actions.submitGeneration({ model: 'image-fast', prompt: 'mine' }));
    const id = mine.data!.generation_id;
    expect((await as('ada', () => actions.getGeneration(id))).data).toMatchObject({ generation_id: id, model: 'image-fast' });
    expect((await as('ada', () => actions.listGenerations())).data?.generations.map((g) => g.generation_id)).toEqual([id]);
    expect((await as('mallory', () => actions.getGeneration(id))).error).toMatchObject({ code: 'NOT_FOUND' });
    expect((await as('mallory', () => actions.listGenerations())).data?.generations).toEqual([]);
    // No user (a session cookie never set): a value saying so, never another user's list.
    expect((await as(undefined, () => actions.getGeneration(id))).error).toMatchObject({ code: 'USER_UNKNOWN' });
    expect((await as(undefined, () => actions.listGenerations())).error).toMatchObject({ code: 'USER_UNKNOWN' });
    expect((await as(undefined, () => actions.submitGeneration({ model: 'image-fast', prompt: 'x' }))).error).toMatchObject({
      code: 'USER_UNKNOWN',
    });
    for (const bad of [42, '', undefined, 'x'.repeat(1000)])
      expect((await as('ada', () => actions.getGeneration(bad))).error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a key that is not a valid header value (non-ASCII, control characters, too long) is a 4xx value naming it, never a masked 500', async () => {
    const { actions, submitted } = setup();
    const before = await service.reserves();
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1 }).filter((s) => /[^\x20-\x7e]/.test(s)),
      fc.string({ unit: fc.constantFrom(...'abc\t\n\u00e9\u2603'), minLength: 1 }).filter((s) => /[^\x20-\x7e]/.test(s)),
      fc.string({ minLength: 256, maxLength: 400 }),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (key) => {
        const { error } = await as('ada', () => actions.submitGeneration({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: key }));
        expect(error).toMatchObject({ code: 'INVALID_BODY', field: 'Idempotency-Key' });
      }),
      { numRuns: 60 },
    );
    expect(submitted).toEqual([]);
    expect(await service.reserves()).toBe(before);
  });

  it('estimates without charging', async () => {
    const { actions } = setup();
    const params = { model: 'image-pro', prompt: 'x', quality: 'high' };
    const before = await service.reserves();
    const estimate = await as('ada', () => actions.estimateGeneration(params));
    expect(estimate.data?.credits_estimate).toBe(quotePrice(catalog.find((m) => m.slug === 'image-pro')!, params).credits);
    expect(await service.reserves()).toBe(before);
  });

  it('returns errors as values: models not allowed, params not accepted, params the schema refuses, the service’s refusals', async () => {
    const { actions } = setup();
    const submit = (params: unknown) => as('ada', () => actions.submitGeneration(params));
    expect((await submit({ model: 'audio-voice', prompt: 'x' })).error).toMatchObject({ code: 'MODEL_NOT_ALLOWED' });
    expect((await submit({ model: 'image-fast', prompt: 'x', estimate: true })).error).toMatchObject({
      code: 'INVALID_BODY',
      field: 'estimate',
    });
    expect((await submit({ model: 'image-fast', prompt: 'x', aspect_ratio: '7:3' })).error).toMatchObject({
      code: 'PARAMS_INVALID',
      field: 'aspect_ratio',
    });
    for (const bad of [null, 'image-fast', [], { prompt: 'no model' }]) {
      const { error } = await submit(bad);
      expect(error?.code).toBe('INVALID_BODY');
      expect(typeof error?.message).toBe('string');
    }
    expect((await submit({ model: 'image-fast', prompt: 'x [[blocked]]' })).error).toMatchObject({
      code: 'CONTENT_POLICY_VIOLATION',
      next: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it("Next's redirect() and notFound() pass through; other thrown errors are masked", async () => {
    const redirecting = setup({ onSubmitted: () => redirect('/done') }).actions;
    await expect(as('ada', () => redirecting.submitGeneration({ model: 'image-fast', prompt: 'x' }))).rejects.toMatchObject({
      digest: expect.stringMatching(/^NEXT_REDIRECT;/),
    });
    const missing = setup({ onSubmitted: () => notFound() }).actions;
    await expect(as('ada', () => missing.submitGeneration({ model: 'image-fast', prompt: 'x' }))).rejects.toMatchObject({
      digest: expect.stringMatching(/NEXT_HTTP_ERROR_FALLBACK;404|NEXT_NOT_FOUND/),
    });
    const failing = setup({
      onSubmitted: () => {
        throw new Error('db password=hunter2 rejected');
      },
    }).actions;
    const { error } = await as('ada', () => failing.submitGeneration({ model: 'image-fast', prompt: 'x' }));
    expect(error).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal error.', next: 'Retry later.', request_id: null });
  });
});
