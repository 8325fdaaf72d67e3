import type { GateWait, RequestOptions } from '@mediagen/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisGateStore } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

// The shared waiting line (issue 34): submits waiting on any process of the account are served
// first come, first served, and each is told its position and what holds the line.

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await cleanUp();
});

/** Two stores on two clients of one Redis, as two instances of an app. */
function twoInstances() {
  const prefix = uniquePrefix('line');
  return [0, 1].map(() => new RedisGateStore({ redis: connection(), prefix, pollMs: 20 })) as [RedisGateStore, RedisGateStore];
}
/** A waiting submit: the same options object at each of its asks, with every wait it was told. */
function submit(signal?: AbortSignal) {
  const waits: GateWait[] = [];
  const options: RequestOptions = { signal, onQueue: (wait) => void waits.push(wait) };
  return { options, waits, last: () => waits[waits.length - 1] };
}
const ONE_SLOT = { perMinute: Number.POSITIVE_INFINITY, maxConcurrent: 1 };

describe('RedisGateStore: one line across instances', () => {
  it('serves waiting submits first come, first served across two instances, each told its place', async () => {
    const [a, b] = twoInstances();
    const first = await a.acquire(ONE_SLOT);
    if (!('token' in first)) throw new Error('the free slot was not given');
    const w1 = submit();
    const w2 = submit();
    expect(await a.acquire(ONE_SLOT, w1.options)).toEqual({ waitMs: 20, limit: 'max_concurrent' });
    expect(await b.acquire(ONE_SLOT, w2.options)).toEqual({ waitMs: 20, limit: 'max_concurrent' });
    expect(w1.last()).toEqual({ position: 1, limit: 'max_concurrent' });
    expect(w2.last()).toEqual({ position: 2, limit: 'max_concurrent' });
    await b.release(first.token);
    // The slot is free, but the second in line asks first: it waits its turn.
    expect('token' in (await b.acquire(ONE_SLOT, w2.options))).toBe(false);
    expect(w2.last()?.position).toBe(2);
    // A submit that names no waiter does not jump the line either.
    expect('token' in (await b.acquire(ONE_SLOT))).toBe(false);
    const granted = await a.acquire(ONE_SLOT, w1.options);
    expect('token' in granted).toBe(true);
    await a.release((granted as { token: string }).token);
    expect('token' in (await b.acquire(ONE_SLOT, w2.options))).toBe(true);
    expect(w1.waits).toHaveLength(1);
  });

  it('an aborted waiter leaves the line at its instance’s next ask; the rate says when the first can go', async () => {
    const [a, b] = twoInstances();
    const rate = { perMinute: 1, maxConcurrent: Number.POSITIVE_INFINITY };
    expect('token' in (await a.acquire(rate))).toBe(true);
    const stop = new AbortController();
    const w1 = submit(stop.signal);
    const w2 = submit();
    const before = Date.now();
    await a.acquire(rate, w1.options);
    await b.acquire(rate, w2.options);
    expect(w1.last()).toMatchObject({ position: 1, limit: 'per_minute' });
    expect(w1.last()?.notBefore).toBeGreaterThan(before);
    expect(w2.last()).toEqual({ position: 2, limit: 'per_minute' });
    stop.abort();
    const w3 = submit();
    await a.acquire(rate, w3.options); // a's next ask takes its aborted waiter out
    await b.acquire(rate, w2.options);
    expect(w2.last()).toMatchObject({ position: 1, limit: 'per_minute' });
    expect(w3.last()).toEqual({ position: 2, limit: 'per_minute' });
  });
});
