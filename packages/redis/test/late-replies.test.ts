import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisDedupeStore, RedisGateStore, RedisStoreError } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await cleanUp();
});

/**
 * A real connection whose first `evalsha` (the store's claim or acquire script) is held back until
 * `answer()`: Redis slow to reply, so the store gives up at its operation timeout, and then the
 * command lands after all. Every later command goes through at once; `next(name)` resolves with
 * the next call of that command the store makes (its clean-up), once Redis has answered it.
 */
function slowFirstScript(real: Redis) {
  let answer!: () => void;
  const gate = new Promise<void>((resolve) => (answer = resolve));
  let held: Promise<unknown> | undefined;
  const waiting = new Map<string, (reply: Promise<unknown>) => void>();
  const client = new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (prop === 'evalsha' && held === undefined) {
          held = gate.then(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
          return held;
        }
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        const waiter = typeof prop === 'string' ? waiting.get(prop) : undefined;
        if (waiter) {
          waiting.delete(prop as string);
          waiter(Promise.resolve(result));
        }
        return result;
      };
    },
  }) as Redis;
  return {
    client,
    /** Lets the held command reach Redis; resolves with its reply. */
    land: async () => {
      answer();
      return held;
    },
    next: (name: string) => new Promise<Promise<unknown>>((resolve) => waiting.set(name, resolve)).then((reply) => reply),
  };
}

describe('a Redis reply that lands after the operation timeout', () => {
  it('RedisDedupeStore: a claim given up on is released when it lands, so the retry of the delivery can run', async () => {
    const prefix = uniquePrefix('late-claim');
    const key = 'gen_late:generation.completed';
    // Both scripts loaded on the server first, so the clean-up is one EVALSHA (no NOSCRIPT round).
    const warm = new RedisDedupeStore({ redis: connection(), prefix });
    expect(await warm.claim('warm:generation.completed', 60_000)).toBe('claimed');
    await warm.release('warm:generation.completed');

    const slow = slowFirstScript(connection());
    const store = new RedisDedupeStore({ redis: slow.client, prefix, operationTimeoutMs: 50 });
    // The lease is the default five minutes: far past the service's retry chain.
    const refused = await store.claim(key, 5 * 60_000).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RedisStoreError);
    expect(refused).toMatchObject({ code: 'REDIS_UNAVAILABLE', retryable: true });

    const cleanUpCall = slow.next('evalsha');
    expect(await slow.land()).toEqual(['claimed', expect.any(String)]);
    // The claim reached Redis after the receiver answered 5xx: nobody will complete or release it,
    // unless the store does so itself.
    expect(await cleanUpCall).toBe(1);
    const other = new RedisDedupeStore({ redis: connection(), prefix });
    expect(await other.claim(key, 60_000)).toBe('claimed');
  });

  it('RedisGateStore: an acquire given up on frees its slot when it lands, so no slot leaks for the in-flight TTL', async () => {
    const prefix = uniquePrefix('late-acquire');
    const limits = { perMinute: 100, maxConcurrent: 1 };
    const warm = new RedisGateStore({ redis: connection(), prefix: uniquePrefix('late-acquire-warm') });
    const grant = await warm.acquire(limits);
    if ('token' in grant) await warm.release(grant.token);

    const slow = slowFirstScript(connection());
    const store = new RedisGateStore({ redis: slow.client, prefix, operationTimeoutMs: 50 });
    // Fails closed: the submit is not sent, so it will never bind or release the slot.
    await expect(store.acquire(limits)).rejects.toBeInstanceOf(RedisStoreError);

    const cleanUpCall = slow.next('zrem');
    expect(await slow.land()).toEqual([1, 0]);
    expect(await cleanUpCall).toBe(1);
    // The only slot of max_concurrent 1 is free again for the next submit, in any process.
    const other = new RedisGateStore({ redis: connection(), prefix });
    expect(await other.inFlight()).toBe(0);
    expect(await other.acquire(limits)).toEqual({ token: expect.any(String) });
  });
});
