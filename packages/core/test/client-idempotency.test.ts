import { describe, expect, it } from 'vitest';
import {
  AbortError,
  ConfigurationError,
  ConnectionError,
  GenerationFailedError,
  MediaGenClient,
  type MediaGenError,
  NotFoundError,
  ParamsValidationError,
  TimeoutError,
} from '../src/index';
import { scriptedClients } from './support/scripted-client';
import { errorBody, generationBody, json } from './support/scripted-server';

const setup = scriptedClients({ maxRetries: 0 });

const fail = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable('resolved'),
    (e: unknown) => e as MediaGenError,
  );
const GEN_ID = generationBody('pending').generation_id;
const accepted = { generation_id: GEN_ID, status: 'pending', model: 'image-fast', credits_estimate: 4 };

describe('every error out of create and run carries the idempotency key it used', () => {
  it('create: a dropped connection after the submit; resending with the key sends the same key', async () => {
    const { client, server } = await setup((_req, res, i) => (i === 0 ? res.socket?.destroy() : json(res, 202, accepted)));
    const error = await fail(client.generations.create({ model: 'image-fast', prompt: 'x' }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.retryable).toBe(true);
    expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.idempotencyKey).toBe(server.requests[0]!.headers['idempotency-key']);
    expect(JSON.parse(JSON.stringify(error)).idempotencyKey).toBe(error.idempotencyKey);
    const retried = await client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: error.idempotencyKey! });
    expect(retried.generation_id).toBe(GEN_ID);
    expect(server.requests[1]!.headers['idempotency-key']).toBe(error.idempotencyKey);
  });

  it('create: errors before anything is sent carry it too (params, abort), and a caller key is kept', async () => {
    const { client } = await setup((req, res) =>
      req.path === '/api/v1/models'
        ? json(res, 200, { models: [{ slug: 'image-fast', params: { prompt: { type: 'string', required: true } } }] })
        : json(res, 202, accepted),
    );
    const validating = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: client.baseUrl, validate: true });
    const invalid = await fail(validating.generations.create({ model: 'image-fast' }, { idempotencyKey: 'mine-1' }));
    expect(invalid).toBeInstanceOf(ParamsValidationError);
    expect(invalid.idempotencyKey).toBe('mine-1');
    const controller = new AbortController();
    controller.abort();
    const aborted = await fail(client.generations.create({ model: 'image-fast', prompt: 'x' }, { signal: controller.signal }));
    expect(aborted).toBeInstanceOf(AbortError);
    expect(aborted.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('create: an idempotency key that cannot be a header is a ConfigurationError, not a 15 s retry loop', async () => {
    const { client, server } = await setup((_req, res) => json(res, 202, accepted));
    const error = await fail(client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: 'a\nb', maxRetries: 4 }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(server.requests).toHaveLength(0);
  });

  it('create: an error that is not the SDK’s (a custom fetch throwing a string) is wrapped and still carries the key', async () => {
    const { client } = await setup((_req, res) => json(res, 202, accepted), {
      fetch: (() => {
        throw 'boom';
      }) as unknown as typeof fetch,
    });
    const error = await fail(client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: 'k-2' }));
    expect(error.idempotencyKey).toBe('k-2');
  });

  it('run: a failure while waiting carries the key and the generation id', async () => {
    const { client } = await setup((req, res) =>
      req.method === 'POST' ? json(res, 202, accepted) : json(res, 404, errorBody('NOT_FOUND')),
    );
    const error = await fail(client.generations.run({ model: 'image-fast', prompt: 'x' }, { intervalMs: 1 }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.generationId).toBe(GEN_ID);
    expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('run: a failed generation and a wait timeout carry both; a failed submit carries the key', async () => {
    let status = 'failed';
    const { client, server } = await setup((req, res) =>
      req.method === 'POST'
        ? json(res, 202, accepted)
        : json(res, 200, generationBody(status, { error: { code: 'unknown', message: 'm', retryable: true } })),
    );
    const failed = await fail(client.generations.run({ model: 'image-fast', prompt: 'x' }, { intervalMs: 1, idempotencyKey: 'k-3' }));
    expect(failed).toBeInstanceOf(GenerationFailedError);
    expect([failed.idempotencyKey, failed.generationId]).toEqual(['k-3', GEN_ID]);
    status = 'processing';
    const late = await fail(
      client.generations.run({ model: 'image-fast', prompt: 'x' }, { intervalMs: 1, timeoutMs: 20, idempotencyKey: 'k-4' }),
    );
    expect(late).toBeInstanceOf(TimeoutError);
    expect([late.idempotencyKey, late.generationId]).toEqual(['k-4', GEN_ID]);
    await server.close();
    const down = await fail(client.generations.run({ model: 'image-fast', prompt: 'x' }));
    expect(down).toBeInstanceOf(ConnectionError);
    expect(down.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(down.generationId).toBeUndefined();
    expect(server.requests.filter((r) => r.method === 'POST').map((r) => r.headers['idempotency-key'])).toEqual(['k-3', 'k-4']);
  });

  it('wait: errors carry the generation id', async () => {
    const { client } = await setup((_req, res) => json(res, 404, errorBody('NOT_FOUND')));
    const error = await fail(client.generations.wait('g-77', { intervalMs: 1 }));
    expect(error.generationId).toBe('g-77');
  });
});
