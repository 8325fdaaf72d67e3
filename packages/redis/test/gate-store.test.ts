import { MediaGenClient, RateLimitError } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisGateStore, RedisStoreError } from '../src/index';
import { startProcess } from './support/process';
import { closeAll, connection, REDIS_URL, sleep, uniquePrefix } from './support/redis';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await closeAll();
});

const gate = (prefix: string, options: Partial<ConstructorParameters<typeof RedisGateStore>[0]> = {}) =>
  new RedisGateStore({ redis: connection(), prefix, pollMs: 20, ...options });
const token = (grant: { token: string } | { waitMs: number }) => ('token' in grant ? grant.token : undefined);

describe('RedisGateStore', () => {
  it('shares the per-minute rate and the concurrency between stores on separate connections', async () => {
    const prefix = uniquePrefix('gate');
    const [a, b] = [gate(prefix), gate(prefix)];
    const limits = { perMinute: 3, maxConcurrent: 2 };
    const t1 = token(await a.acquire(limits));
    const t2 = token(await b.acquire(limits));
    expect(t1 && t2).toBeTruthy();
    expect(await a.acquire(limits)).toEqual({ waitMs: 20 }); // both slots taken, one by each
    await a.bind(t1!, 'gen-1');
    await b.release(t2!); // a failed submit gives its slot back, its rate hit stays
    expect(await a.inFlight()).toBe(1);
    expect(token(await b.acquire(limits))).toBeTruthy(); // the third submit of the minute
    await b.settle('gen-1'); // settled by the other process (e.g. on a webhook it received)
    const full = await a.acquire(limits);
    expect('waitMs' in full && full.waitMs > 50_000).toBe(true); // the rate is spent for ~a minute
  });

  it("a crashed process's slots lapse after their TTL instead of leaking", async () => {
    const prefix = uniquePrefix('ttl');
    const crashed = gate(prefix, { inFlightTtlMs: 150 });
    const survivor = gate(prefix);
    const limits = { perMinute: 100, maxConcurrent: 1 };
    await crashed.bind(token(await crashed.acquire(limits))!, 'never-settled');
    expect('waitMs' in (await survivor.acquire(limits))).toBe(true);
    let grant: { token: string } | { waitMs: number } = { waitMs: 1 };
    for (let i = 0; i < 100 && 'waitMs' in grant; i++) {
      await sleep(25);
      grant = await survivor.acquire(limits);
    }
    expect(token(grant)).toBeTruthy();
  });

  it('a 429 met by one process pauses every process; resends count as rate hits; a lost answer holds its slot', async () => {
    const prefix = uniquePrefix('feedback');
    const [a, b] = [gate(prefix), gate(prefix)];
    await a.pause(Date.now() + 60_000);
    const paused = await b.acquire({ perMinute: 100, maxConcurrent: 10 });
    expect('waitMs' in paused && paused.waitMs > 55_000).toBe(true);

    const other = uniquePrefix('hits');
    const [c, d] = [gate(other), gate(other)];
    await c.hit(Date.now());
    await c.hit(Date.now() + 1_000);
    expect(token(await d.acquire({ perMinute: 3, maxConcurrent: 10 }))).toBeTruthy();
    expect('waitMs' in (await d.acquire({ perMinute: 3, maxConcurrent: 10 }))).toBe(true);

    const held = uniquePrefix('hold');
    const [e, f] = [gate(held), gate(held)];
    const t = token(await e.acquire({ perMinute: 100, maxConcurrent: 1 }))!;
    await e.hold(t, 150);
    expect('waitMs' in (await f.acquire({ perMinute: 100, maxConcurrent: 1 }))).toBe(true);
    let grant: { token: string } | { waitMs: number } = { waitMs: 1 };
    for (let i = 0; i < 100 && 'waitMs' in grant; i++) {
      await sleep(25);
      grant = await f.acquire({ perMinute: 100, maxConcurrent: 1 });
    }
    expect(token(grant)).toBeTruthy();
  });

  it('fails closed with RedisStoreError when Redis is down, or open when asked', async () => {
    const closed = new RedisGateStore({ redis: 'redis://127.0.0.1:1', operationTimeoutMs: 300 });
    const open = new RedisGateStore({ redis: 'redis://127.0.0.1:1', operationTimeoutMs: 300, failOpen: true });
    closers.push(
      () => closed.close(),
      () => open.close(),
    );
    await expect(closed.acquire({ perMinute: 1, maxConcurrent: 1 })).rejects.toBeInstanceOf(RedisStoreError);
    const grant = await open.acquire({ perMinute: 1, maxConcurrent: 1 });
    expect(token(grant)).toBeTruthy();
    await open.bind(token(grant)!, 'g'); // bookkeeping failures are swallowed too when failing open
  });
});

describe('two real processes through one Redis gate', () => {
  it('never hold more than max_concurrent slots together', async () => {
    const prefix = uniquePrefix('gate-procs');
    const env = { REDIS_URL, PREFIX: prefix, ROUNDS: '10', WORKERS: '4', HOLD_MS: '15', MAX: '3' };
    // Each process resolves once all its rounds are through.
    await Promise.all([startProcess('gate-process.mjs', env), startProcess('gate-process.mjs', env)]);
    const redis = connection();
    expect(await redis.get(`${prefix}done`)).toBe('80');
    const peak = Number(await redis.get(`${prefix}peak`));
    expect(peak).toBeGreaterThan(1); // they did run side by side
    expect(peak).toBeLessThanOrEqual(3);
  });
});

describe('two clients through one Redis gate against the emulator', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('never exceed max_concurrent together and meet no 429', async () => {
    emulator = await startEmulator({
      port: 0,
      config: { timeScale: 0.01, accounts: [{ id: 'acct_gate', tier: 'pro', balance: 15_000, keys: [{ key: 'svc_live_gate' }] }] },
    });
    const prefix = uniquePrefix('clients');
    const stores = [gate(prefix), gate(prefix)];
    const clients = stores.map(
      (store) => new MediaGenClient({ apiKey: 'svc_live_gate', baseUrl: emulator!.url, gate: store, maxRetries: 0 }),
    );
    let peak = 0;
    const sampler = setInterval(() => void stores[0]!.inFlight().then((n) => (peak = Math.max(peak, n))), 5);
    const errors: unknown[] = [];
    // 12 runs per client: Pro allows 5 in flight, so most runs wait in the shared gate.
    await Promise.all(
      clients.flatMap((client, c) =>
        Array.from({ length: 12 }, (_, i) =>
          client.generations.run({ model: 'image-fast', prompt: `p${c}-${i}` }, { intervalMs: 20 }).catch((e: unknown) => errors.push(e)),
        ),
      ),
    );
    clearInterval(sampler);
    expect(errors.filter((e) => e instanceof RateLimitError)).toEqual([]);
    expect(errors).toEqual([]);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(5);
    const account = (await (await fetch(`${emulator.url}/__emulator/accounts/acct_gate`)).json()) as { in_flight?: number };
    expect(account.in_flight ?? 0).toBe(0);
    expect(await stores[0]!.inFlight()).toBe(0);
  });
});
