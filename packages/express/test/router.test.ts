import { deliver, listen, makePayload } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import express5 from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRouteHandler, type RouteHandlerOptions } from '../src';
import type { ExpressModule } from './support/serve';

const KEY = 'svc_live_router_test';
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_router', tier: 'pro', balance: 15_000, keys: [{ key: KEY }] }] },
  });
});
afterAll(() => emulator?.close());
beforeEach(async () => {
  await fetch(`${emulator.url}/__emulator/faults`, { method: 'DELETE' });
});

async function mount(expressModule: ExpressModule, options: Partial<RouteHandlerOptions> = {}, apiKey = KEY) {
  const client = new MediaGenClient({ apiKey, baseUrl: emulator.url, maxRetries: 0 });
  const app = expressModule();
  // These tests are about the routes, not users: every request is one user, said explicitly.
  app.use('/api/mediagen', createRouteHandler({ client, allowAnonymous: true, ...options }));
  app.use((_req, res) => void res.status(404).json({ fallthrough: true }));
  const server = await listen(app);
  const base = `${server.origin}/api/mediagen`;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    expect(text).not.toContain(apiKey);
    return { status: res.status, headers: res.headers, body: JSON.parse(text) as Record<string, any> };
  };
  return { call, close: server.close };
}

describe.each([
  ['express 5', express5],
  ['express 4', express4],
] as const)('%s: createRouteHandler', (_name, expressModule) => {
  it('submits (202 body), reads the status, the models and the credits, never echoing the key', async () => {
    const { call, close } = await mount(expressModule);
    try {
      const submitted = await call('POST', '/generations', { model: 'image-fast', prompt: 'a red kite' });
      expect(submitted.status).toBe(202);
      expect(submitted.body).toMatchObject({
        status: 'pending',
        model: 'image-fast',
        generation_id: expect.any(String),
        request_id: expect.stringMatching(/^req_/),
      });
      const status = await call('GET', `/generations/${submitted.body.generation_id}`);
      expect(status.status).toBe(200);
      expect(status.body.generation_id).toBe(submitted.body.generation_id);
      const models = await call('GET', '/models');
      expect(models.body.models.length).toBeGreaterThan(3);
      const credits = await call('GET', '/credits');
      expect(credits.body).toMatchObject({ balance: expect.any(Number), tier: 'pro' });
      expect((await call('GET', '/elsewhere')).body).toEqual({ fallthrough: true });
    } finally {
      await close();
    }
  });

  it('restricts models and params the browser may send', async () => {
    const { call, close } = await mount(expressModule, { allowModels: ['image-fast'], allowParams: ['model', 'prompt'] });
    try {
      const other = await call('POST', '/generations', { model: 'video-standard', prompt: 'x' });
      expect(other.status).toBe(403);
      expect(other.body).toMatchObject({
        error: 'MODEL_NOT_ALLOWED',
        model: 'video-standard',
        message: expect.any(String),
        next: expect.any(String),
      });
      const param = await call('POST', '/generations', { model: 'image-fast', prompt: 'x', number_results: 4 });
      expect(param.status).toBe(422);
      expect(param.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'number_results' } });
      const models = await call('GET', '/models');
      expect(models.body.models.map((m: { slug: string }) => m.slug)).toEqual(['image-fast']);
    } finally {
      await close();
    }
  });

  it("maps the service's errors to its status and error body", async () => {
    const { call, close } = await mount(expressModule);
    try {
      const blocked = await call('POST', '/generations', { model: 'image-fast', prompt: 'a cat [[blocked]]' });
      expect(blocked.status).toBe(400);
      expect(blocked.body).toMatchObject({
        error: 'CONTENT_POLICY_VIOLATION',
        message: expect.any(String),
        request_id: expect.stringMatching(/^req_/),
      });
      expect(blocked.headers.get('x-request-id')).toBe(blocked.body.request_id);

      const missing = await call('GET', '/generations/00000000-0000-4000-8000-000000000000');
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('NOT_FOUND');

      await fetch(`${emulator.url}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'generate', count: 1, status: 429, code: 'RATE_LIMIT' }),
      });
      const limited = await call('POST', '/generations', { model: 'image-fast', prompt: 'x' });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe('RATE_LIMIT');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

      await fetch(`${emulator.url}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'credits', count: 1, status: 503, code: 'PROVIDER_DOWN' }),
      });
      const down = await call('GET', '/credits');
      expect(down.status).toBe(503);
      expect(down.body.error).toBe('PROVIDER_DOWN');
    } finally {
      await close();
    }
  });

  it("a bad server key is the app's 500 (not the browser user's 401), whose body never shows the key", async () => {
    const { call, close } = await mount(expressModule, {}, 'svc_live_not_a_key_on_file');
    try {
      const res = await call('GET', '/credits');
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ error: 'KEY_INVALID', message: 'Internal error.' });
      expect(JSON.stringify(res.body)).not.toContain('not_a_key_on_file');
    } finally {
      await close();
    }
  });

  it('params the model refuses answer 422 with the spec body (client-side or from the service)', async () => {
    const { call, close } = await mount(expressModule);
    try {
      const res = await call('POST', '/generations', { model: 'image-fast', prompt: 'x', number_results: 9 });
      expect(res.status).toBe(422);
      expect(['PARAMS_INVALID', 'INVALID_NUMBER_RESULTS']).toContain(res.body.error);
      expect(res.body).toMatchObject({ message: expect.any(String), next: expect.any(String) });
    } finally {
      await close();
    }
  });

  it('passes the browser Idempotency-Key on, so a double click bills once', async () => {
    const { call, close } = await mount(expressModule);
    try {
      const headers = { 'idempotency-key': `click-${Math.random()}` };
      const a = await call('POST', '/generations', { model: 'image-fast', prompt: 'once' }, headers);
      const b = await call('POST', '/generations', { model: 'image-fast', prompt: 'once' }, headers);
      expect(b.body.generation_id).toBe(a.body.generation_id);
    } finally {
      await close();
    }
  });

  it('bad bodies: not JSON 422, wrong type 422, too large 413, already parsed by express.json() is used as is', async () => {
    const { call, close } = await mount(expressModule, { maxBodyBytes: '1kb' });
    try {
      expect((await call('POST', '/generations', '{"model": ')).status).toBe(422);
      expect((await call('POST', '/generations', 'model=image-fast', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(
        422,
      );
      const big = await call('POST', '/generations', { model: 'image-fast', prompt: 'x'.repeat(2000) });
      expect(big.status).toBe(413);
      expect(big.body.error).toBe('INVALID_BODY');
    } finally {
      await close();
    }
    const app = expressModule();
    app.use(expressModule.json());
    app.use(createRouteHandler({ client: new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url }), allowAnonymous: true }));
    const server = await listen(app);
    try {
      const res = await fetch(`${server.origin}/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-fast', prompt: 'parsed' }),
      });
      expect(res.status).toBe(202);
    } finally {
      await server.close();
    }
  });

  it('runs beforeSubmit and onSubmitted around the submit', async () => {
    const seen: string[] = [];
    const { call, close } = await mount(expressModule, {
      beforeSubmit: (params) => ({ ...params, seed: 7 }),
      onSubmitted: (submitted, params) => void seen.push(`${submitted.generation_id}:${params.seed}`),
    });
    try {
      const res = await call('POST', '/generations', { model: 'image-fast', prompt: 'hooks' });
      expect(seen).toEqual([`${res.body.generation_id}:7`]);
    } finally {
      await close();
    }
  });
});

describe('createRouteHandler behind express.json() without the raw bytes kept', () => {
  it.each([
    ['express 5', express5],
    ['express 4', express4],
  ] as const)(
    '%s: the webhook route answers 500 WEBHOOK_BODY_PARSED (retried once fixed), never verifies a re-serialised body',
    async (_name, expressModule) => {
      const app = expressModule();
      app.use(expressModule.json());
      const events: unknown[] = [];
      const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url });
      app.use(
        '/api',
        createRouteHandler({
          client,
          webhook: { secrets: 'whsec_parsed', onEvent: (event) => void events.push(event) },
          onError: () => {},
        }),
      );
      const server = await listen(app);
      try {
        const res = await deliver(`${server.origin}/api/webhooks/mediagen`, makePayload(), { secret: 'whsec_parsed' });
        expect(res.status).toBe(500);
        expect((await res.json()).error).toBe('WEBHOOK_BODY_PARSED');
        expect(events).toEqual([]);
      } finally {
        await server.close();
      }
    },
  );
});
