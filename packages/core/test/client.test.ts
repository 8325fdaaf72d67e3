import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  ConfigurationError,
  type Generation,
  GenerationFailedError,
  MediaGenClient,
  RESPONSE,
  TimeoutError,
} from '../src/index';
import { generationBody, json, type Responder, startScriptedServer } from './support/scripted-server';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function setup(responder: Responder) {
  const server = await startScriptedServer(responder);
  closers.push(server.close);
  return { server, client: new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: `${server.url}/`, validate: false }) };
}

const submitted = {
  generation_id: '7b0c6f8e-0000-4000-8000-000000000001',
  status: 'pending',
  model: 'image-fast',
  credits_estimate: 4,
  pricing_source: 'catalog_default',
  created_at: '2026-11-22T00:00:00.000Z',
};

describe('requests', () => {
  it('sends the bearer key and JSON body, and surfaces request id, rate and balance headers', async () => {
    const { client, server } = await setup((_req, res) =>
      json(
        res,
        202,
        { ...submitted, request_id: 'req_sub1', future_field: 'kept' },
        { 'x-ratelimit-remaining': '239', 'x-credits-balance': '15,000' },
      ),
    );
    const result = await client.generations.create({ model: 'image-fast', prompt: 'a fox', seed: 7 });
    const sent = server.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/api/v1/generate');
    expect(sent.headers.authorization).toBe('Bearer svc_live_test');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({ model: 'image-fast', prompt: 'a fox', seed: 7 });
    expect(result[RESPONSE]).toMatchObject({ requestId: 'req_sub1', rateLimitRemaining: 239, creditsBalance: 15000 });
    expect(result.future_field).toBe('kept');
    // The SDK's meta does not leak into the wire body an app may pass on.
    expect(JSON.parse(JSON.stringify(result))).toEqual({ ...submitted, request_id: 'req_sub1', future_field: 'kept' });
  });

  it('estimate sends estimate: true and no idempotency key', async () => {
    const { client, server } = await setup((_req, res) => json(res, 200, { estimate: true, credits_estimate: 12, model: 'image-fast' }));
    const estimate = await client.generations.estimate({ model: 'image-fast', prompt: 'x', number_results: 3 });
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ estimate: true, number_results: 3 });
    expect(server.requests[0]!.headers['idempotency-key']).toBeUndefined();
    expect(estimate.credits_estimate).toBe(12);
  });

  it('models.list and credits.get read their endpoints', async () => {
    const { client, server } = await setup((req, res) =>
      req.url === '/api/v1/models'
        ? json(res, 200, { tier: 'pro', credits_balance: 100, rate_limit: { per_minute: 240, max_concurrent: 5 }, models: [] })
        : json(res, 200, {
            balance: 100,
            tier: 'pro',
            cycle_resets_at: null,
            rate_limit: { per_minute: 240, max_concurrent: 5 },
            spent_this_cycle: 0,
            granted_this_cycle: 15000,
          }),
    );
    const models = await client.models.list();
    const credits = await client.credits.get();
    expect(models.rate_limit.max_concurrent).toBe(5);
    expect(credits.balance).toBe(100);
    expect(credits[RESPONSE].requestId).toMatch(/^req_/);
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/models', '/api/v1/credits']);
  });

  it('escapes the id in the path', async () => {
    const { client, server } = await setup((_req, res) => json(res, 200, generationBody('pending')));
    await client.generations.get('../credits');
    expect(server.requests[0]!.url).toBe('/api/v1/generations/..%2Fcredits');
  });
});

describe('configuration', () => {
  it('rejects a missing key (on its first request), a bad base URL and bad retries with a ConfigurationError', async () => {
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    try {
      const client = new MediaGenClient({ baseUrl: 'https://api.example.test' });
      await expect(client.credits.get()).rejects.toThrow(ConfigurationError);
      await expect(client.credits.get()).rejects.toThrow(/MEDIAGEN_API_KEY/);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(() => new MediaGenClient({ apiKey: 'k', baseUrl: 'ftp://x' })).toThrow(ConfigurationError);
    expect(() => new MediaGenClient({ apiKey: 'k', maxRetries: -1 })).toThrow(ConfigurationError);
  });

  it('reads the key and base URL from the environment, defaulting to the emulator', () => {
    // Outside production (client-production-default.test.ts covers production).
    vi.stubEnv('NODE_ENV', 'development');
    process.env.MEDIAGEN_API_KEY = 'svc_live_env';
    delete process.env.MEDIAGEN_BASE_URL;
    try {
      expect(new MediaGenClient().baseUrl).toBe('http://127.0.0.1:4010');
      process.env.MEDIAGEN_BASE_URL = 'https://api.example.test/';
      expect(new MediaGenClient().baseUrl).toBe('https://api.example.test');
    } finally {
      delete process.env.MEDIAGEN_API_KEY;
      delete process.env.MEDIAGEN_BASE_URL;
      vi.unstubAllEnvs();
    }
  });

  it('refuses params that are not an object with a model', async () => {
    const client = new MediaGenClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9', validate: false });
    await expect(client.generations.create(null as never)).rejects.toBeInstanceOf(ConfigurationError);
    await expect(client.generations.create({ prompt: 'x' } as never)).rejects.toThrow(/model/);
    await expect(client.generations.get('')).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe('wait and run', () => {
  const sequence = (states: Array<Record<string, unknown>>): Responder => {
    let reads = 0;
    return (req, res) => {
      if (req.method === 'POST') return json(res, 202, submitted);
      const body = states[Math.min(reads++, states.length - 1)]!;
      json(res, 200, body);
    };
  };

  it('polls to completed, calling onUpdate once per status change', async () => {
    const { client, server } = await setup(
      sequence([
        generationBody('pending'),
        generationBody('pending'),
        generationBody('processing'),
        generationBody('processing'),
        generationBody('completed'),
      ]),
    );
    const seen: string[] = [];
    const done = await client.generations.wait(submitted.generation_id, { intervalMs: 5, onUpdate: (g) => seen.push(g.status) });
    expect(done.status).toBe('completed');
    expect(done.output_url).toContain('/api/v1/output/');
    expect(seen).toEqual(['pending', 'processing', 'completed']);
    expect(server.requests).toHaveLength(5);
  });

  it('wait resolves with a failed generation; run throws GenerationFailedError', async () => {
    const failed = generationBody('failed', { credits_used: 0, error: { code: 'model_unavailable', message: 'busy', retryable: true } });
    const { client } = await setup(sequence([generationBody('processing'), failed]));
    const resolved = await client.generations.wait(submitted.generation_id, { intervalMs: 5 });
    expect(resolved.status).toBe('failed');

    const again = await setup(sequence([failed]));
    const error = await again.client.generations.run({ model: 'image-fast', prompt: 'x' }, { intervalMs: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationFailedError);
    const failure = error as GenerationFailedError;
    expect(failure.code).toBe('model_unavailable');
    expect(failure.retryable).toBe(true);
    expect(failure.generation.generation_id).toBe(submitted.generation_id);
    expect(failure.creditsForfeited).toBe(false);
  });

  it('says that credits were forfeited on CONTENT_POLICY_VIOLATION', async () => {
    const flagged = generationBody('failed', {
      credits_used: 4,
      error: { code: 'CONTENT_POLICY_VIOLATION', message: 'flagged', retryable: false },
    });
    const { client } = await setup(sequence([flagged]));
    const error = (await client.generations
      .run({ model: 'image-fast', prompt: 'x' }, { intervalMs: 5 })
      .catch((e: unknown) => e)) as GenerationFailedError;
    expect(error.creditsForfeited).toBe(true);
    expect(error.message).toMatch(/forfeited/);
    expect(error.retryable).toBe(false);
  });

  it('accepts the earlier failed form: error as a string with a separate message', async () => {
    const legacy = { ...generationBody('failed', { credits_used: 0 }), error: 'PROVIDER_ERROR', message: 'upstream broke' };
    const { client } = await setup(sequence([legacy]));
    const generation: Generation = await client.generations.wait(submitted.generation_id, { intervalMs: 5 });
    expect(generation.error).toEqual({ code: 'PROVIDER_ERROR', message: 'upstream broke', retryable: false });
    const error = (await client.generations
      .run({ model: 'image-fast', prompt: 'x' }, { intervalMs: 5 })
      .catch((e: unknown) => e)) as GenerationFailedError;
    expect(error.code).toBe('PROVIDER_ERROR');
  });

  it('honours the overall deadline and the signal', async () => {
    const { client } = await setup(sequence([generationBody('processing')]));
    await expect(client.generations.wait(submitted.generation_id, { intervalMs: 20, timeoutMs: 100 })).rejects.toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(client.generations.wait(submitted.generation_id, { intervalMs: 1000, signal: controller.signal })).rejects.toBeInstanceOf(
      AbortError,
    );
  });
});
