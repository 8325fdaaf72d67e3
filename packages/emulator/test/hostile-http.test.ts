import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/index.js';
import { type Emu, emulator, expectErrorShape, KEY } from './helpers.js';
import { jsonError, rawExchange } from './raw.js';

let emu: Emu;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.close());

const deep = (n: number) => `{"model":${'['.repeat(n)}${']'.repeat(n)},"prompt":"x"}`;

describe('hostile bodies and paths get 4xx, never 500', () => {
  it('deeply nested JSON with an Idempotency-Key is 422 INVALID_BODY (no stack overflow while hashing)', async () => {
    const r = await emu.call('POST', '/api/v1/generate', { body: deep(200_000), headers: { 'idempotency-key': 'deep-1' } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'body' } });
    expectErrorShape(r);
    const plain = await emu.call('POST', '/api/v1/generate', { body: deep(200_000) });
    expect(plain.status).toBe(422);
    // Nesting within the bound is judged on its content as before.
    const shallow = await emu.call('POST', '/api/v1/generate', { body: deep(10), headers: { 'idempotency-key': 'deep-2' } });
    expect(shallow.status).toBe(422);
    expect(shallow.body.details.field).toBe('model');
  });

  it('brackets inside strings do not count as nesting', async () => {
    const r = await emu.submit({ model: 'image-fast', prompt: '['.repeat(1000) }, { headers: { 'idempotency-key': 'strings' } });
    expect(r.status).toBe(202);
  });

  it.each(['/api/v1/generations/%E0%A4%A', '/api/v1/generations/%ZZ', '/api/v1/generations/%'])(
    'GET %s is 404 NOT_FOUND JSON',
    async (path) => {
      const r = await emu.call('GET', path);
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('NOT_FOUND');
      expectErrorShape(r);
    },
  );

  it('a body over the cap is 413 INVALID_BODY on every route, declared or chunked', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    for (const [method, path] of [
      ['POST', '/api/v1/generate'],
      ['GET', '/api/v1/credits'],
      ['POST', '/__emulator/faults'],
    ] as const) {
      const r = await rawExchange(emu.url, [
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`,
        big,
      ]);
      expect(r.status, `${method} ${path}`).toBe(413);
      expect(jsonError(r).error).toBe('INVALID_BODY');
    }
    const chunked = await rawExchange(emu.url, [
      `POST /api/v1/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
    ]);
    expect(chunked.status).toBe(413);
    expect(jsonError(chunked).error).toBe('INVALID_BODY');
  });
});

describe('Node-level protocol errors and timeouts answer with the JSON error body', () => {
  it('protocol garbage is 400 with a JSON error body', async () => {
    for (const bytes of ['GARBAGE\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET /x HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n']) {
      const r = await rawExchange(emu.url, [bytes]);
      expect(r.status, bytes).toBe(400);
      expect(jsonError(r).error).toBe('BAD_REQUEST');
      expect(r.headers['content-type']).toContain('application/json');
    }
  });

  it('oversized headers are 431 with a JSON error body', async () => {
    const r = await rawExchange(emu.url, [`GET /api/v1/credits HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(r.status).toBe(431);
    expect(jsonError(r).error).toBe('HEADERS_TOO_LARGE');
  });

  it('a slow body and slow headers get 408 JSON at the request timeout, far below Node 300 s', async () => {
    const fast = await startEmulator({ port: 0, config: { timeScale: 0.001 }, requestTimeoutMs: 600, headersTimeoutMs: 400 });
    try {
      const [body, headers] = await Promise.all([
        rawExchange(fast.url, [
          `POST /api/v1/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer svc_live_emulator_demo\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"model":`,
        ]),
        rawExchange(fast.url, ['GET /api/v1/credits HTTP/1.1\r\nHost: 127.0.0.1\r\n']),
      ]);
      expect(body.status).toBe(408);
      expect(jsonError(body).error).toBe('REQUEST_TIMEOUT');
      expect(headers.status).toBe(408);
      expect(jsonError(headers).error).toBe('REQUEST_TIMEOUT');
      // Answered at all: the body never ends and the headers never finish, so only the request
      // timeout can have ended them (Node's own default, 300 s, would outlast this test).
      // The server still answers afterwards.
      expect((await fetch(`${fast.url}/__emulator/health`)).status).toBe(200);
    } finally {
      await fast.close();
    }
  });
});
