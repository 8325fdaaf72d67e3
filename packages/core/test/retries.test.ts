import { describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  RateLimitError,
  RESPONSE,
  ServerError,
  TimeoutError,
} from '../src/index';
import { scriptedClients } from './support/scripted-client';
import { errorBody, json, type Responder } from './support/scripted-server';

const submitted = {
  generation_id: '7b0c6f8e-0000-4000-8000-0000000000aa',
  status: 'pending',
  model: 'image-fast',
  credits_estimate: 4,
  pricing_source: 'catalog_default',
  created_at: '2026-11-22T00:00:00.000Z',
};
const params = { model: 'image-fast', prompt: 'a red fox' };

const setup = scriptedClients();

/** Runs `work` with fake timers, moving the clock until it settles (real sockets keep working). */
async function onFakeClock<T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; elapsedMs: number }> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const start = Date.now();
  let done = false;
  const outcome = work().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  void outcome.finally(() => (done = true));
  while (!done) await vi.advanceTimersByTimeAsync(100);
  const result = await outcome;
  return { ...result, elapsedMs: Date.now() - start };
}

describe('retries per the spec client guidance', () => {
  it('backs off 1 s then 2 s on 5xx, with one idempotency key on every attempt', async () => {
    const { client, server, retries } = await setup((_req, res, i) => {
      if (i < 2) return json(res, 500, errorBody('INTERNAL_ERROR'));
      return json(res, 202, submitted);
    });
    const { value } = await onFakeClock(() => client.generations.create(params));
    expect(value?.generation_id).toBe(submitted.generation_id);
    expect(server.requests).toHaveLength(3);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(value?.[RESPONSE].idempotencyKey).toBe(keys[0]);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(1250);
    expect(retries[1]!.delayMs).toBeGreaterThanOrEqual(2000);
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(2500);
  });

  it('gives up after 5 attempts in all, with the last error, and caps the wait at 30 s', async () => {
    const { client, server, retries } = await setup((_req, res) => json(res, 503, errorBody('INTERNAL_ERROR')), {
      maxRetries: 7,
    });
    const { error } = await onFakeClock(() => client.generations.get('abc', { maxRetries: 6 }));
    expect(error).toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(7);
    expect(Math.max(...retries.map((r) => r.delayMs))).toBeLessThanOrEqual(30_000);
    expect(retries[5]!.delayMs).toBe(30_000);

    const defaults = await setup((_req, res) => json(res, 500, errorBody('INTERNAL_ERROR')));
    await onFakeClock(() => defaults.client.credits.get());
    expect(defaults.server.requests).toHaveLength(5);
  });

  it('keeps a caller-supplied idempotency key as is', async () => {
    const { client, server } = await setup((_req, res, i) =>
      i === 0 ? json(res, 500, errorBody('INTERNAL_ERROR')) : json(res, 202, submitted),
    );
    const { value } = await onFakeClock(() => client.generations.create(params, { idempotencyKey: 'order-42' }));
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['order-42', 'order-42']);
    expect(value?.[RESPONSE].idempotencyKey).toBe('order-42');
  });

  it('gives each logical create its own key', async () => {
    const { client, server } = await setup((_req, res) => json(res, 202, submitted));
    await client.generations.create(params);
    await client.generations.create(params);
    const [a, b] = server.requests.map((r) => r.headers['idempotency-key']);
    expect(a).not.toBe(b);
  });

  it('honours Retry-After on 429, and waits 5 s when it is absent', async () => {
    const { client, server, retries } = await setup((_req, res, i) => {
      if (i === 0) return json(res, 429, errorBody('RATE_LIMIT'), { 'retry-after': '2' });
      if (i === 1) return json(res, 429, errorBody('RATE_LIMIT'));
      return json(res, 202, submitted);
    });
    const { value, elapsedMs } = await onFakeClock(() => client.generations.create(params));
    expect(value?.status).toBe('pending');
    expect(server.requests).toHaveLength(3);
    expect(retries.map((r) => r.delayMs)).toEqual([2000, 5000]);
    expect(elapsedMs).toBeGreaterThanOrEqual(7000);
  });

  it('waits 3 s on 409 IDEMPOTENT_REQUEST_IN_FLIGHT and then gets the original', async () => {
    const { client, server, retries } = await setup((_req, res, i) =>
      i === 0 ? json(res, 409, errorBody('IDEMPOTENT_REQUEST_IN_FLIGHT'), { 'retry-after': '3' }) : json(res, 202, submitted),
    );
    const { value } = await onFakeClock(() => client.generations.create(params));
    expect(value?.generation_id).toBe(submitted.generation_id);
    expect(retries.map((r) => r.delayMs)).toEqual([3000]);
    expect(server.requests[0]!.headers['idempotency-key']).toBe(server.requests[1]!.headers['idempotency-key']);
  });

  it('waits 60 s on PROVIDER_DOWN unless the service says otherwise', async () => {
    const { client, retries } = await setup((_req, res, i) =>
      i === 0 ? json(res, 503, errorBody('PROVIDER_DOWN')) : json(res, 202, submitted),
    );
    await onFakeClock(() => client.generations.create(params));
    expect(retries.map((r) => r.delayMs)).toEqual([60_000]);
  });

  it('waits "a few minutes" (2 min) on SAFETY_CHECK_UNAVAILABLE, not the 1 s backoff, and says so on the error', async () => {
    const { client, retries } = await setup((_req, res, i) =>
      i === 0 ? json(res, 503, errorBody('SAFETY_CHECK_UNAVAILABLE')) : json(res, 202, submitted),
    );
    const { value } = await onFakeClock(() => client.generations.create(params));
    expect(value?.generation_id).toBe(submitted.generation_id);
    expect(retries.map((r) => r.delayMs)).toEqual([120_000]);
    expect(retries[0]!.error).toMatchObject({ status: 503, retryAfterMs: 120_000 });
  });

  it.each([
    [429, 'RATE_LIMIT', RateLimitError],
    [503, 'PROVIDER_DOWN', ServerError],
    [409, 'IDEMPOTENT_REQUEST_IN_FLIGHT', ConflictError],
  ] as const)(
    'a Retry-After past 10 minutes on %i %s is not resent after a default: the error carries the full wait',
    async (status, code, type) => {
      const { client, server, retries } = await setup((_req, res) => json(res, status, errorBody(code), { 'retry-after': '3600' }));
      const error = await client.generations.create(params).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ status, code, retryable: true, retryAfterMs: 3_600_000 });
      expect(server.requests).toHaveLength(1);
      expect(retries).toEqual([]);
    },
  );

  it.each([
    [400, 'CONTENT_POLICY_VIOLATION'],
    [401, 'KEY_INVALID'],
    [402, 'INSUFFICIENT_CREDITS'],
    [403, 'TIER_LOCKED'],
    [404, 'NOT_FOUND'],
    [422, 'INVALID_BODY'],
  ])('never resends a permanent %i %s', async (status, code) => {
    const { client, server } = await setup((_req, res) => json(res, status, errorBody(code)));
    await expect(client.generations.create(params)).rejects.toMatchObject({ status, code, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('does not resend CONCURRENCY_LIMIT unless asked to', async () => {
    const busy: Responder = (_req, res, i) =>
      i === 0
        ? json(res, 429, errorBody('CONCURRENCY_LIMIT', { in_flight: 5, max_concurrent: 5 }), { 'retry-after': '1' })
        : json(res, 202, submitted);
    const plain = await setup(busy);
    await expect(plain.client.generations.create(params)).rejects.toBeInstanceOf(RateLimitError);
    expect(plain.server.requests).toHaveLength(1);

    const patient = await setup(busy, { retryConcurrencyLimit: true });
    const { value } = await onFakeClock(() => patient.client.generations.create(params));
    expect(value?.generation_id).toBe(submitted.generation_id);
    expect(patient.server.requests).toHaveLength(2);
  });

  it("an abort during the back-off of a sent submit does not cut it: it runs to the service's answer (never an AbortError, which says nothing was sent)", async () => {
    // A 1 s Retry-After: the abort lands in the sleep (the retry hook is called before it).
    let n = 0;
    const { client, server, retries } = await setup((_req, res) =>
      n++ === 0 ? json(res, 503, errorBody('PROVIDER_DOWN'), { 'retry-after': '1' }) : json(res, 202, submitted),
    );
    const controller = new AbortController();
    const pending = client.generations.create(params, { signal: controller.signal });
    await vi.waitFor(() => expect(retries).toHaveLength(1), { timeout: 15_000 });
    controller.abort();
    expect((await pending).generation_id).toBe(submitted.generation_id);
    expect(server.requests).toHaveLength(2);
  });

  it('an abort before the send point sends nothing', async () => {
    const { client, server } = await setup((_req, res) => json(res, 202, submitted));
    const controller = new AbortController();
    controller.abort();
    await expect(client.generations.create(params, { signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(0);
  });

  it('an abort cancels the in-flight request', async () => {
    const { client } = await setup(() => undefined /* never answers */);
    const controller = new AbortController();
    const pending = client.credits.get({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it('a slow attempt times out per attempt and is retried; the last timeout surfaces typed', async () => {
    const { client, server } = await setup(() => undefined, { timeoutMs: 100, maxRetries: 1 });
    const { error } = await onFakeClock(() => client.credits.get());
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).retryable).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('a refused connection is a ConnectionError, retried', async () => {
    const { client, server } = await setup(() => undefined);
    await server.close();
    const { error } = await onFakeClock(() => client.credits.get({ maxRetries: 2 }));
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it('a 202 lost after the service enqueued it is recovered by the retry with the same key, unbilled', async () => {
    // The service of this test: an idempotency store and a ledger, like the real one.
    const byKey = new Map<string, typeof submitted>();
    let billed = 0;
    const { client, server } = await setup((req, res, i) => {
      const key = String(req.headers['idempotency-key']);
      const original = byKey.get(key);
      if (original) return json(res, 202, original); // rule 1: the original response, unbilled
      billed += 1;
      byKey.set(key, submitted);
      if (i === 0) {
        res.socket?.destroy(); // enqueued and billed, but the answer never arrives
        return;
      }
      json(res, 202, submitted);
    });
    const { value } = await onFakeClock(() => client.generations.create(params));
    expect(value?.generation_id).toBe(submitted.generation_id);
    expect(server.requests).toHaveLength(2);
    expect(billed).toBe(1);
  });

  it('a 2xx with a body that is not JSON is a typed error', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    await expect(client.credits.get({ maxRetries: 0 })).rejects.toBeInstanceOf(ConnectionError);
  });

  it('permanent 422 after a retry keeps the last error', async () => {
    const { client } = await setup((_req, res, i) =>
      i === 0 ? json(res, 500, errorBody('INTERNAL_ERROR')) : json(res, 422, errorBody('IDEMPOTENCY_KEY_REUSED')),
    );
    const { error } = await onFakeClock(() => client.generations.create(params));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
