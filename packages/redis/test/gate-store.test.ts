import { Gate, MediaGenClient, RateLimitError } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisGateStore, RedisStoreError } from '../src/index';
import { startProcess } from './support/process';
import { cleanUp, connection, REDIS_URL, uniquePrefix } from './support/redis';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await cleanUp();
});

const gate = (prefix: string, options: Partial<ConstructorParameters<typeof RedisGateStore>[0]> = {}) =>
  new RedisGateStore({ redis: connection(), prefix, pollMs: 20, ...options });
const token = (grant: { token: string } | { waitMs: number }) => ('token' in grant ? grant.token : undefined);
/** How long until a slot lapses, on Redis's clock (the slots ZSET scores each member by its lapse time). */
async function lapsesIn(prefix: string, member: string): Promise<number> {
  const redis = connection();
  const [[s, us], score] = await Promise.all([redis.time(), redis.zscore(`${prefix}slots`, member)]);
  return Number(score) - (Number(s) * 1000 + Math.floor(Number(us) / 1000));
}

describe('RedisGateStore', () => {
  it('shares the per-minute rate and the concurrency between stores on separate connections', async () => {
    const prefix = uniquePrefix('gate');
    // A rate window far longer than the test, so the refusal at the end can only be the rate's.
    const windowMs = 10 * 60_000;
    const [a, b] = [gate(prefix, { windowMs }), gate(prefix, { windowMs })];
    const limits = { perMinute: 3, maxConcurrent: 2 };
    const t1 = token(await a.acquire(limits));
    const t2 = token(await b.acquire(limits));
    expect(t1 && t2).toBeTruthy();
    expect(await a.acquire(limits)).toEqual({ waitMs: 20, limit: 'max_concurrent' }); // both slots taken, one by each
    await a.bind(t1!, 'gen-1');
    await b.release(t2!); // a failed submit gives its slot back, its rate hit stays
    expect(await a.inFlight()).toBe(1);
    expect(token(await b.acquire(limits))).toBeTruthy(); // the third submit in the window
    await b.settle('gen-1'); // settled by the other process (e.g. on a webhook it received)
    // The rate is spent until the first submit leaves the window (a slot's wait would be pollMs, 20).
    const full = await a.acquire(limits);
    expect('waitMs' in full && full.waitMs > windowMs / 2 && full.waitMs <= windowMs).toBe(true);
  });

  it("a crashed process's slots lapse after their TTL instead of leaking", async () => {
    const limits = { perMinute: 100, maxConcurrent: 1 };
    // Before its TTL ends, a slot holds the gate (a TTL far longer than the test).
    const held = uniquePrefix('ttl-held');
    const alive = gate(held, { inFlightTtlMs: 60_000 });
    await alive.bind(token(await alive.acquire(limits))!, 'never-settled');
    expect(await gate(held).acquire(limits)).toEqual({ waitMs: 20, limit: 'max_concurrent' });
    const left = await lapsesIn(held, 'never-settled'); // the TTL asked, neither less nor the default
    expect(left).toBeGreaterThan(30_000);
    expect(left).toBeLessThanOrEqual(60_000);
    // A short TTL lapses: the survivor, asking until the slot has lapsed, gets it.
    const prefix = uniquePrefix('ttl');
    const crashed = gate(prefix, { inFlightTtlMs: 100 });
    const survivor = gate(prefix);
    await crashed.bind(token(await crashed.acquire(limits))!, 'never-settled');
    await expect.poll(async () => token(await survivor.acquire(limits))).toBeTruthy();
  });

  it('a 429 met by one process pauses every process; resends count as rate hits; a lost answer holds its slot', async () => {
    const prefix = uniquePrefix('feedback');
    const [a, b] = [gate(prefix), gate(prefix)];
    const pauseMs = 10 * 60_000; // far longer than the test
    await a.pause(Date.now() + pauseMs);
    const paused = await b.acquire({ perMinute: 100, maxConcurrent: 10 });
    expect('waitMs' in paused && paused.waitMs > pauseMs / 2 && paused.waitMs <= pauseMs).toBe(true);

    const other = uniquePrefix('hits');
    const [c, d] = [gate(other), gate(other)];
    await c.hit(Date.now());
    await c.hit(Date.now() + 1_000);
    expect(token(await d.acquire({ perMinute: 3, maxConcurrent: 10 }))).toBeTruthy();
    expect('waitMs' in (await d.acquire({ perMinute: 3, maxConcurrent: 10 }))).toBe(true);

    const one = { perMinute: 100, maxConcurrent: 1 };
    // Held far longer than the test, the slot stays taken.
    const held = uniquePrefix('hold');
    const [e, f] = [gate(held), gate(held)];
    const t = token(await e.acquire(one))!;
    await e.hold(t, 60_000);
    expect(await f.acquire(one)).toEqual({ waitMs: 20, limit: 'max_concurrent' });
    const left = await lapsesIn(held, t); // the hold asked, neither less nor the slot's own TTL
    expect(left).toBeGreaterThan(30_000);
    expect(left).toBeLessThanOrEqual(60_000);
    // Held briefly, it lapses when the hold ends (not with the slot's 15-minute TTL): another
    // process, asking until then, gets it.
    const brief = uniquePrefix('hold-brief');
    const [g, h] = [gate(brief), gate(brief)];
    await g.hold(token(await g.acquire(one))!, 100);
    await expect.poll(async () => token(await h.acquire(one))).toBeTruthy();
  });

  it('a hit scheduled ahead still counts after later acquires and hits (the key never expires early)', async () => {
    const prefix = uniquePrefix('ahead');
    const windowMs = 200;
    const [a, b] = [gate(prefix, { windowMs }), gate(prefix, { windowMs })];
    const redis = connection();
    // A resend that will go in a minute: it counts until a minute and one window from now.
    await a.hit(Date.now() + 60_000);
    await b.hit(Date.now()); // a hit now needs the key for one window only
    expect(token(await b.acquire({ perMinute: 3, maxConcurrent: 10 }))).toBeTruthy(); // so does an acquire
    // Neither may have cut the key's life short of the resend's window (cut short, it is at most one window).
    expect(await redis.pttl(`${prefix}hits`)).toBeGreaterThan(windowMs);
    // One window on, by Redis's clock: a key set now to expire after one window has expired. By then
    // the hit and the acquire have left the window, and a key cut short to one window would be gone.
    await redis.set(`${prefix}tick`, '1', 'PX', windowMs);
    await expect.poll(() => redis.exists(`${prefix}tick`)).toBe(0);
    const refused = await a.acquire({ perMinute: 1, maxConcurrent: 10 });
    expect('waitMs' in refused).toBe(true); // the resend still holds the rate
    expect(await redis.zcard(`${prefix}hits`)).toBe(1); // alone: that acquire dropped the others from the window
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
  it('hold slots at the same time, and never more than max_concurrent together', async () => {
    const prefix = uniquePrefix('gate-procs');
    const env = { REDIS_URL, PREFIX: prefix, ROUNDS: '10', WORKERS: '4', HOLD_MS: '15', MAX: '3', PROCS: '2' };
    // Each process waits for the other at a barrier, then resolves once all its rounds are through.
    await Promise.all([startProcess('gate-process.mjs', env), startProcess('gate-process.mjs', env)]);
    const redis = connection();
    expect(await redis.get(`${prefix}done`)).toBe('80');
    // Counted in Redis, atomically with each take: the peak of holders across both processes,
    // and how many takes found a slot held by the other process.
    const peak = Number(await redis.get(`${prefix}peak`));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(3);
    expect(Number(await redis.get(`${prefix}overlaps`))).toBeGreaterThan(0);

    // The same from each hold's own times: both processes held slots at once, never over 3 together.
    const spans = (await redis.lrange(`${prefix}spans`, 0, -1)).map(
      (s) => JSON.parse(s) as { process: string; start: number; end: number },
    );
    expect(spans).toHaveLength(80);
    expect(new Set(spans.map((s) => s.process)).size).toBe(2);
    // A sweep over [start, end): at equal times an end goes before a start.
    const edges = spans
      .flatMap((s) => [
        { at: s.start, d: 1, process: s.process },
        { at: s.end, d: -1, process: s.process },
      ])
      .sort((x, y) => x.at - y.at || x.d - y.d);
    const holding = new Map<string, number>();
    let most = 0;
    let together = 0;
    for (const edge of edges) {
      holding.set(edge.process, (holding.get(edge.process) ?? 0) + edge.d);
      const counts = [...holding.values()];
      most = Math.max(
        most,
        counts.reduce((a, b) => a + b, 0),
      );
      if (edge.d === 1 && counts.filter((n) => n > 0).length === 2) together++;
    }
    expect(most).toBeLessThanOrEqual(3);
    expect(together).toBeGreaterThan(0);
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
      (store) => new MediaGenClient({ apiKey: 'svc_live_gate', baseUrl: emulator!.url, gate: new Gate({ store }), maxRetries: 0 }),
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
