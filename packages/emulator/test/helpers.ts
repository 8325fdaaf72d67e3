import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach, expect } from 'vitest';
import { type EmulatorConfig, type RunningEmulator, startEmulator } from '../src/index.js';

export const KEY = 'svc_live_test_pro';

export interface Res {
  status: number;
  headers: Headers;
  body: any;
  raw: Buffer;
}

export interface Emu extends RunningEmulator {
  call(method: string, path: string, opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Res>;
  submit(body: Record<string, unknown>, opts?: { key?: string; headers?: Record<string, string> }): Promise<Res>;
  get(id: string, key?: string): Promise<Res>;
  wait(id: string, key?: string, timeoutMs?: number): Promise<Res>;
  control(method: string, path: string, body?: unknown): Promise<Res>;
  fetchRaw(url: string): Promise<Res>;
}

export function proAccount(over: Record<string, unknown> = {}) {
  return { id: 'acct_pro', tier: 'pro', balance: 15000, keys: [{ key: KEY }], ...over };
}

/** Configs in tests are plain literals; the emulator validates them at run time anyway. */
export async function emulator(config: Record<string, unknown> = { timeScale: 0.001, accounts: [proAccount()] }): Promise<Emu> {
  const emu = await startEmulator({ port: 0, config: config as EmulatorConfig });
  const toRes = async (r: Response): Promise<Res> => {
    const raw = Buffer.from(await r.arrayBuffer());
    let body: unknown = null;
    if ((r.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(raw.toString('utf8'));
    return { status: r.status, headers: r.headers, body, raw };
  };
  const call: Emu['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? KEY : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    return toRes(await fetch(emu.url + path, { method, headers, body, redirect: 'manual' }));
  };
  const get = (id: string, key?: string) => call('GET', `/api/v1/generations/${id}`, key ? { key } : {});
  return {
    ...emu,
    call,
    submit: (body, opts = {}) =>
      call('POST', '/api/v1/generate', {
        body,
        ...(opts.key ? { key: opts.key } : {}),
        ...(opts.headers ? { headers: opts.headers } : {}),
      }),
    get,
    async wait(id, key, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const r = await get(id, key);
        if (r.body?.status === 'completed' || r.body?.status === 'failed') return r;
        if (Date.now() > end) throw new Error(`generation ${id} still ${r.body?.status}`);
        await sleep(5);
      }
    },
    control: (method, path, body) => call(method, `/__emulator${path}`, { key: null, ...(body !== undefined ? { body } : {}) }),
    fetchRaw: async (url) => toRes(await fetch(url)),
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function until<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  stepMs = 10,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(stepMs);
  }
}

export interface Received {
  at: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A webhook receiver on a free port; `behave(n)` decides what the n-th request (1-based) gets. */
export async function receiver(
  behave: (n: number, req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; received: Received[]; close(): Promise<void>; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ at: performance.now(), headers: req.headers, body: Buffer.concat(chunks) });
      behave(received.length, req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port nothing listens on. */
export async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export const expectErrorShape = (r: Res) => {
  if (typeof r.body?.error !== 'string' || typeof r.body?.message !== 'string' || typeof r.body?.next !== 'string') {
    throw new Error(`bad error body ${JSON.stringify(r.body)}`);
  }
  if (r.body.request_id !== r.headers.get('x-request-id') || !/^req_\w+$/.test(r.body.request_id)) {
    throw new Error(`request_id mismatch ${r.body.request_id} vs ${r.headers.get('x-request-id')}`);
  }
};

/** One emulator for the whole test file: reset before each test, closed after the last. */
export async function sharedEmulator(): Promise<Emu> {
  const emu = await emulator();
  afterAll(() => emu.close());
  beforeEach(async () => {
    expect((await emu.control('POST', '/reset')).status).toBe(200);
  });
  return emu;
}
