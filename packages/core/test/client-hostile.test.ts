import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { APIError, ConnectionError, isMediaGenError, type MediaGenClient, type MediaGenError, ServerError } from '../src/index';
import { scriptedClients } from './support/scripted-client';
import { errorBody, generationBody, json } from './support/scripted-server';

const setup = scriptedClients({ maxRetries: 0 });

const fail = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable('resolved'),
    (e: unknown) => e as MediaGenError,
  );

describe('error bodies: bounded and linear', () => {
  it('an HTML body of 200 KB of "<" becomes a ServerError at once (was 14 s of regex)', async () => {
    const page = '<'.repeat(200_000);
    const { client } = await setup((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(page);
    });
    const error = await fail(client.credits.get());
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message.length).toBeLessThan(1_000);
  });

  it('a 30 MB error message is capped in the error, and the body is not read whole', async () => {
    const huge = 'm'.repeat(30 * 1024 * 1024);
    const { client } = await setup((_req, res) => json(res, 400, errorBody('OPTION_NOT_AVAILABLE', { message: huge })));
    const error = await fail(client.credits.get());
    expect(error).toBeInstanceOf(APIError);
    // The body is cut at 64 KiB: past that it is not JSON any more, so the status is what is known.
    expect(error.message.length).toBeLessThanOrEqual(2_000);
    expect(JSON.stringify(error.body).length).toBeLessThan(70_000);
  });

  it('a small gzip error body that inflates past the bound is cut off, not read whole (the declared length is compressed)', async () => {
    const inflated = JSON.stringify(errorBody('INTERNAL_ERROR', { message: 'z'.repeat(8 * 1024 * 1024) }));
    const bomb = gzipSync(inflated);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const { client } = await setup((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    });
    const error = await fail(client.credits.get());
    expect(error).toBeInstanceOf(APIError);
    expect(error.message.length).toBeLessThanOrEqual(2_000);
    expect(JSON.stringify(error.body ?? null).length).toBeLessThan(70_000);
  });

  it('an error body that never ends is cut off at the bound', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      const chunk = `{"error":"INTERNAL_ERROR","message":"${'x'.repeat(16_000)}`;
      const pump = () => {
        while (res.write(chunk)) {}
        res.once('drain', pump);
      };
      pump();
      res.on('close', () => res.removeAllListeners('drain'));
    });
    const error = await fail(client.credits.get());
    expect(error).toBeInstanceOf(ServerError);
    expect(error.code).toBe('HTTP_500');
  });

  it('a long message inside a small JSON error body is capped at 500 characters', async () => {
    const { client } = await setup((_req, res) =>
      json(res, 422, errorBody('INVALID_BODY', { message: 'y'.repeat(10_000), next: 'n'.repeat(10_000) })),
    );
    const error = await fail(client.credits.get());
    expect(error.code).toBe('INVALID_BODY');
    expect(error.message.length).toBeLessThan(700);
    expect(error.next!.length).toBeLessThan(600);
  });

  it('non-string message, code and request_id fields are ignored, not interpolated', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'INTERNAL_ERROR', message: { toString: 1 }, next: 7, request_id: ['x'] }));
    });
    const error = await fail(client.credits.get());
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.next).toBeUndefined();
    expect(error.requestId).toBeUndefined();
  });
  it('download: an output link answering an endless error body gives a typed error, the body cut at the bound', async () => {
    const { client } = await setup((req, res) => {
      if (req.path.startsWith('/api/v1/generations/')) {
        // A link of the service's own shape on its address: download fetches only those.
        const link = '/api/v1/output/g1/4102444800/c2ln/0/a.png';
        return json(res, 200, generationBody('completed', { output_url: link, output_urls: [link] }));
      }
      res.writeHead(503, { 'content-type': 'text/html' });
      const chunk = '<'.repeat(16_000);
      const pump = () => {
        while (res.write(chunk)) {}
        res.once('drain', pump);
      };
      pump();
      res.on('close', () => res.removeAllListeners('drain'));
    });
    const error = await fail(client.generations.download('g1'));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(503);
  });
});

describe('2xx bodies the contract does not allow', () => {
  const bad = ['null', '[]', '"text"', '42', 'true', '{}', '{"generation_id":7,"status":"completed"}'];
  const calls: Array<[string, (c: MediaGenClient) => Promise<unknown>]> = [
    ['generations.get', (c) => c.generations.get('g1')],
    ['generations.create', (c) => c.generations.create({ model: 'image-fast', prompt: 'x' })],
    ['models.list', (c) => c.models.list()],
    ['credits.get', (c) => c.credits.get()],
  ];
  for (const [name, call] of calls) {
    it(`${name}: ${bad.join(', ')} -> APIError INVALID_RESPONSE, never a TypeError or a resolved value`, async () => {
      let body = '';
      const { client } = await setup((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_bad' });
        res.end(body);
      });
      for (body of bad) {
        const error = await fail(call(client));
        expect(error, body).toBeInstanceOf(APIError);
        expect(error.code, body).toBe('INVALID_RESPONSE');
        expect(error.requestId).toBe('req_bad');
        expect(error.retryable).toBe(false);
      }
    });
  }

  it('a models list whose entries are not models is refused; one with extra fields is kept', async () => {
    let list: unknown;
    const { client } = await setup((_req, res) => json(res, 200, list as Record<string, unknown>));
    list = { models: [null] };
    expect((await fail(client.models.list())).code).toBe('INVALID_RESPONSE');
    list = { models: { slug: 'x' } };
    expect((await fail(client.models.list())).code).toBe('INVALID_RESPONSE');
    list = { tier: 'pro', models: [{ slug: 'image-fast', brand_new_field: { deep: true } }], future: 1 };
    expect((await client.models.list()).models[0]!.slug).toBe('image-fast');
  });

  it('keeps tolerating the earlier failed form and unknown fields on a status read', async () => {
    const { client } = await setup((_req, res) =>
      json(res, 200, generationBody('failed', { error: 'PROVIDER_ERROR', message: 'upstream', extra: [1, 2] })),
    );
    const generation = await client.generations.get('g1');
    expect(generation.error).toEqual({ code: 'PROVIDER_ERROR', message: 'upstream', retryable: false });
  });

  it('a 2xx that is not JSON stays a ConnectionError (a cut body), retried like one', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"generation_id":');
    });
    expect(await fail(client.generations.get('g1'))).toBeInstanceOf(ConnectionError);
  });

  it('create with a model list holding a malformed schema: sent, or a typed error, never a TypeError', async () => {
    const { client } = await setup(
      (req, res) =>
        req.path === '/api/v1/models'
          ? json(res, 200, {
              models: [{ slug: 'image-fast', params: { size: { type: 'enum', values_by_quality: { high: 7 } }, quality: 5 } }],
            })
          : json(res, 202, { generation_id: 'g2', status: 'pending' }),
      { validate: true },
    );
    const outcome = await client.generations.create({ model: 'image-fast', prompt: 'x', size: '1024x1024', quality: 'high' }).then(
      (submitted) => submitted.generation_id,
      (error: unknown) => error,
    );
    if (outcome !== 'g2') expect(isMediaGenError(outcome), String(outcome)).toBe(true);
  });
});

/** Runs `work` with fake timers, moving the clock until it settles (real sockets keep working). */
async function onFakeClock<T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown }> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  let done = false;
  const outcome = work().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  void outcome.finally(() => (done = true));
  while (!done) await vi.advanceTimersByTimeAsync(250);
  return outcome;
}

describe('Retry-After: unreadable values fall back to the spec default, waits past the cap are not resent', () => {
  const past = new Date(Date.now() - 60_000).toUTCString();
  const future = new Date(Date.now() + 365 * 24 * 3600_000).toUTCString();
  it.each([
    ['-5', 429, 5_000],
    ['soon', 429, 5_000],
    ['Infinity', 409, 3_000],
    [past, 429, 5_000],
    ['2', 429, 2_000],
  ])('Retry-After %s on %i waits %i ms', async (header, status, expected) => {
    const { client, retries } = await setup(
      (_req, res, i) =>
        i === 0
          ? json(res, status, errorBody(status === 429 ? 'RATE_LIMIT' : 'IDEMPOTENT_REQUEST_IN_FLIGHT'), { 'retry-after': header })
          : json(res, 200, { balance: 1 }),
      { maxRetries: 1 },
    );
    const { value, error } = await onFakeClock(() => client.credits.get());
    expect(error).toBeUndefined();
    expect(value?.balance).toBe(1);
    expect(retries.map((r) => r.delayMs)).toEqual([expected]);
  });

  it.each([
    ['3000000', 429, 3_000_000_000],
    ['1e3', 429, 1_000_000],
    [future, 409, undefined],
  ])('Retry-After %s on %i is past the cap: not resent, the error reports the whole wait', async (header, status, expected) => {
    const { client, server } = await setup(
      (_req, res) =>
        json(res, status, errorBody(status === 429 ? 'RATE_LIMIT' : 'IDEMPOTENT_REQUEST_IN_FLIGHT'), { 'retry-after': header }),
      { maxRetries: 4 },
    );
    const error = (await fail(client.credits.get())) as MediaGenError & { retryAfterMs: number };
    expect(server.requests).toHaveLength(1);
    if (expected !== undefined) expect(error.retryAfterMs).toBe(expected);
    else expect(error.retryAfterMs).toBeGreaterThan(364 * 24 * 3600_000);
  });
});
