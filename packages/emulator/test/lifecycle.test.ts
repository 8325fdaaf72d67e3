import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, catalog, resolveConfig, startEmulator } from '../src/index.js';
import { createHandler } from '../src/server.js';
import { EmulatorState } from '../src/state.js';
import { type Emu, emulator, expectErrorShape, KEY, proAccount, sleep } from './helpers.js';

/** This machine's first non-loopback IPv4 address, if it has one. */
const externalIPv4 = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

describe('states and timing', () => {
  let emu: Emu;
  beforeAll(async () => {
    // image: pick-up 0.5-3 s then 5-15 s of render, scaled by 0.5: at least 250 ms of pending,
    // wide enough to see every state even when a loaded CI machine is slow to answer the first read.
    emu = await emulator({ timeScale: 0.5, accounts: [proAccount() as never] });
  });
  afterAll(() => emu.close());

  it('pending -> processing -> completed, the same field set in every state', async () => {
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const seen = new Set<string>();
    const keys = new Set<string>();
    let last: Awaited<ReturnType<typeof emu.get>>;
    const t0 = Date.now();
    for (;;) {
      last = await emu.get(s.body.generation_id);
      seen.add(last.body.status);
      keys.add(Object.keys(last.body).sort().join(','));
      expect(last.body.request_id).toBe(last.headers.get('x-request-id'));
      if (last.body.status === 'completed') break;
      expect(last.body).toMatchObject({ output_url: null, output_urls: null, duration_ms: null, completed_at: null, credits_used: 4 });
      await sleep(50);
    }
    const elapsed = Date.now() - t0;
    expect([...seen]).toEqual(['pending', 'processing', 'completed']);
    expect(keys.size).toBe(1);
    // (0.5 s + 5 s) x 0.5 at the least. No ceiling: past the model's longest, the time only
    // measures how loaded the machine is.
    expect(elapsed).toBeGreaterThanOrEqual(2700);
    expect(last.body.duration_ms).toBeGreaterThanOrEqual(2750);
    expect(Date.parse(last.body.completed_at)).toBeGreaterThanOrEqual(Date.parse(last.body.created_at));
    expect(last.body.error).toBeUndefined();
  });

  it("another account's generation is 404 NOT_FOUND, like an unknown id", async () => {
    const other = await emulator({
      timeScale: 0.001,
      accounts: [proAccount() as never, { id: 'b', tier: 'pro', balance: 100, keys: [{ key: 'svc_live_b' }] }],
    });
    try {
      const s = await other.submit({ model: 'image-fast', prompt: 'x' });
      const r = await other.get(s.body.generation_id, 'svc_live_b');
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('NOT_FOUND');
    } finally {
      await other.close();
    }
  });
});

describe('faults', () => {
  let emu: Emu;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterEach(async () => {
    await emu.control('DELETE', '/faults');
  });
  afterAll(() => emu.close());

  it('the next count matching requests fail with the given status and code, then recover', async () => {
    await emu.control('POST', '/faults', { endpoint: 'models', count: 2, status: 500, code: 'INTERNAL_ERROR' });
    await emu.control('POST', '/faults', { endpoint: 'credits', count: 1, status: 503, code: 'SAFETY_CHECK_UNAVAILABLE' });
    const a = await emu.call('GET', '/api/v1/models');
    expect(await emu.call('GET', '/api/v1/credits').then((r) => [r.status, r.body.error])).toEqual([503, 'SAFETY_CHECK_UNAVAILABLE']);
    const b = await emu.call('GET', '/api/v1/models');
    const c = await emu.call('GET', '/api/v1/models');
    expect([a.status, b.status, c.status]).toEqual([500, 500, 200]);
    expect(a.body.error).toBe('INTERNAL_ERROR');
    expectErrorShape(a);
  });

  it("'before' on generate: nothing created, nothing billed", async () => {
    const before = (await emu.control('GET', '/accounts/acct_pro')).body.balance;
    await emu.control('POST', '/faults', { endpoint: 'generate', count: 1, status: 503, code: 'PROVIDER_DOWN', when: 'before' });
    const r = await emu.submit({ model: 'image-fast', prompt: 'x' });
    expect(r.status).toBe(503);
    expect(r.body.error).toBe('PROVIDER_DOWN');
    expect(r.headers.get('retry-after')).toBe('60');
    expect((await emu.control('GET', '/accounts/acct_pro')).body.balance).toBe(before);
  });

  it("'after' on status and 'any'; reset drops the connection", async () => {
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    await emu.control('POST', '/faults', { endpoint: 'status', count: 1, status: 500, when: 'after' });
    const r = await emu.get(s.body.generation_id);
    expect(r.status).toBe(500);
    expect(r.body.error).toBe('INTERNAL_ERROR');
    await emu.control('POST', '/faults', { endpoint: 'any', count: 1, reset: true });
    await expect(emu.call('GET', '/api/v1/credits')).rejects.toThrow();
    await emu.control('POST', '/faults', { endpoint: 'generate', count: 1, reset: true, when: 'after' });
    const before = (await emu.control('GET', '/accounts/acct_pro')).body.balance;
    await expect(emu.submit({ model: 'image-fast', prompt: 'x' })).rejects.toThrow();
    expect((await emu.control('GET', '/accounts/acct_pro')).body.balance).toBe(before - 4);
    expect((await emu.call('GET', '/api/v1/credits')).status).toBe(200);
  });

  it('delayMs delays the answer; a 429 fault carries Retry-After', async () => {
    await emu.control('POST', '/faults', { endpoint: 'credits', count: 1, delayMs: 150 });
    const t0 = Date.now();
    expect((await emu.call('GET', '/api/v1/credits')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    await emu.control('POST', '/faults', { endpoint: 'generate', status: 429 });
    const r = await emu.submit({ model: 'image-fast', prompt: 'x' });
    expect([r.status, r.body.error, r.headers.get('retry-after')]).toEqual([429, 'RATE_LIMIT', '1']);
  });

  it('faults are listed, validated and cleared', async () => {
    const bad = await emu.control('POST', '/faults', { endpoint: 'nope' });
    expect(bad.status).toBe(422);
    const bad2 = await emu.control('POST', '/faults', { endpoint: 'any', colour: 1 });
    expect(bad2.body.message).toContain('colour');
    await emu.control('POST', '/faults', [{ endpoint: 'models', count: 3, status: 500 }]);
    expect((await emu.control('GET', '/faults')).body.faults).toHaveLength(1);
    await emu.control('DELETE', '/faults');
    expect((await emu.call('GET', '/api/v1/models')).status).toBe(200);
  });
});

describe('controls', () => {
  it('reset: back to the start state (balances, generations, faults, clock)', async () => {
    const emu = await emulator();
    try {
      const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
      await emu.control('POST', '/clock', { advanceMs: 10_000 });
      await emu.control('POST', '/faults', { endpoint: 'models', status: 500 });
      const r = await emu.control('POST', '/reset');
      expect(r.status).toBe(200);
      expect((await emu.get(s.body.generation_id)).status).toBe(404);
      const acct = (await emu.control('GET', '/accounts/acct_pro')).body;
      expect(acct).toMatchObject({ balance: 15000, spent: 0, in_flight: 0 });
      expect(acct.ledger).toHaveLength(1);
      expect((await emu.call('GET', '/api/v1/models')).status).toBe(200);
      const clock = (await emu.control('GET', '/clock')).body;
      expect(clock.offset_ms).toBe(0);
      const h = (await emu.control('GET', '/health')).body;
      expect(h).toMatchObject({ ok: true, generations: 0 });
      expect((await emu.control('GET', '/deliveries')).body.deliveries).toEqual([]);
      expect((await emu.control('GET', '/accounts/nope')).status).toBe(404);
      expect((await emu.control('POST', '/clock', { advanceMs: -5 })).status).toBe(422);
    } finally {
      await emu.close();
    }
  });

  it('PATCH an account (balance, status, until)', async () => {
    const emu = await emulator();
    try {
      await emu.control('PATCH', '/accounts/acct_pro', { balance: 3 });
      expect((await emu.submit({ model: 'image-fast', prompt: 'x' })).body).toMatchObject({
        error: 'INSUFFICIENT_CREDITS',
        balance: 3,
        needed: 4,
      });
      await emu.control('PATCH', '/accounts/acct_pro', { status: 'frozen' });
      expect((await emu.submit({ model: 'image-fast', prompt: 'x' })).body.error).toBe('ACCOUNT_FROZEN');
      expect((await emu.control('PATCH', '/accounts/acct_pro', { colour: 1 })).status).toBe(422);
    } finally {
      await emu.close();
    }
  });

  // A peer that is not loopback, on any machine: the Node handler the server mounts, given the
  // peer address a request from another host would have.
  it('control routes answer only to a loopback peer; the API answers any peer', async () => {
    const state = new EmulatorState(resolveConfig({ accounts: [proAccount()] }));
    const handle = createHandler(state);
    let peer = '192.0.2.10';
    const server = createServer((req, res) => {
      Object.defineProperty(req.socket, 'remoteAddress', { value: peer, configurable: true });
      handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const p of ['192.0.2.10', '10.0.0.7', '::ffff:192.168.1.2', 'fe80::1', '']) {
        peer = p;
        expect((await fetch(`${origin}/__emulator/health`)).status, p).toBe(404);
        const api = await fetch(`${origin}/api/v1/credits`, { headers: { authorization: `Bearer ${KEY}` } });
        expect(api.status, p).toBe(200);
      }
      for (const p of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
        peer = p;
        expect((await fetch(`${origin}/__emulator/health`)).status, p).toBe(200);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      state.close();
    }
  });

  // The same over a real non-loopback interface, where the machine has one.
  it.skipIf(!externalIPv4)('control routes answer only on loopback, over a non-loopback interface', async () => {
    const ext = externalIPv4 as string;
    const emu = await startEmulator({ port: 0, host: '0.0.0.0', config: { accounts: [proAccount() as never] } });
    try {
      const port = new URL(emu.url).port;
      const r = await fetch(`http://${ext}:${port}/__emulator/health`);
      expect(r.status).toBe(404);
      const api = await fetch(`http://${ext}:${port}/api/v1/credits`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(api.status).toBe(200);
      expect((await fetch(`${emu.url}/__emulator/health`)).status).toBe(200);
    } finally {
      await emu.close();
    }
  });
});

describe('config', () => {
  it('rejects unknown keys naming the key and the path', () => {
    expect(() => resolveConfig({ timescale: 1 })).toThrow(/config: unknown key "timescale"/);
    expect(() => resolveConfig({ accounts: [{ id: 'a', tier: 'pro', keys: [{ key: 'svc_live_x', revokd: true }] }] })).toThrow(
      /config\.accounts\[0\]\.keys\[0\]: unknown key "revokd"/,
    );
    expect(() => resolveConfig({ accounts: [{ id: 'a', tier: 'gold', keys: [] }] })).toThrow(/accounts\[0\]\.tier/);
    expect(() => resolveConfig({ accounts: [{ id: 'a', tier: 'pro', keys: [], models: ['nope'] }] })).toThrow(/unknown model "nope"/);
    expect(() => resolveConfig({ accounts: [{ id: 'a', tier: 'pro', keys: [], pricingOverrides: { nope: 1 } }] })).toThrow(
      /pricingOverrides: unknown key "nope"/,
    );
    expect(() => resolveConfig({ accounts: [{ id: 'a', tier: 'pro', keys: [{ key: 'abc' }] }] })).toThrow(/svc_live_/);
    expect(() =>
      resolveConfig({
        requireHttpsWebhooks: true,
        accounts: [{ id: 'a', tier: 'pro', keys: [], webhooks: [{ url: 'http://x.example/h', secret: 's' }] }],
      }),
    ).toThrow(/https/);
    const six = Array.from({ length: 6 }, () => ({ url: 'https://x.example/h', secret: 's' }));
    expect(() => resolveConfig({ accounts: [{ id: 'a', tier: 'pro', keys: [], webhooks: six }] })).toThrow(/at most 5/);
    expect(() => resolveConfig({ timeScale: 1 })).not.toThrow();
    expect(new ConfigError('x')).toBeInstanceOf(Error);
  });

  it('default: one pro account acct_demo with 15,000 credits, every model, webhook from env', async () => {
    const c = resolveConfig(
      {},
      { MEDIAGEN_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhooks/mediagen', MEDIAGEN_WEBHOOK_SECRET: 'whsec_env' },
    );
    expect(c.accounts).toHaveLength(1);
    expect(c.accounts[0]).toMatchObject({
      id: 'acct_demo',
      tier: 'pro',
      balance: 15000,
      models: null,
      keys: [{ key: 'svc_live_emulator_demo', revoked: false }],
      webhooks: [{ url: 'http://127.0.0.1:3000/api/webhooks/mediagen', secret: 'whsec_env', enabled: true }],
    });
    expect(resolveConfig({}, {}).accounts[0]?.webhooks).toEqual([]);
    const emu = await startEmulator({ port: 0 });
    try {
      const r = await fetch(`${emu.url}/api/v1/credits`, { headers: { authorization: 'Bearer svc_live_emulator_demo' } });
      expect((await r.json()).balance).toBe(15000);
    } finally {
      await emu.close();
    }
    expect(catalog.length).toBeGreaterThanOrEqual(10);
  });

  it('config from a file path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emu-'));
    const file = join(dir, 'emulator.json');
    writeFileSync(
      file,
      JSON.stringify({ timeScale: 0.01, accounts: [{ id: 'acct_x', tier: 'ultimate', balance: 7, keys: [{ key: 'svc_live_file' }] }] }),
    );
    const emu = await startEmulator({ port: 0, config: file });
    try {
      const r = await fetch(`${emu.url}/api/v1/credits`, { headers: { authorization: 'Bearer svc_live_file' } });
      expect(await r.json()).toMatchObject({ balance: 7, tier: 'ultimate' });
    } finally {
      await emu.close();
    }
    writeFileSync(file, '{ nope');
    await expect(startEmulator({ port: 0, config: file })).rejects.toThrow(/not valid JSON/);
  });
});
