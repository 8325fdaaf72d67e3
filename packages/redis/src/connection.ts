import { ConfigurationError } from '@mediagen/core';
import { Redis } from 'ioredis';
import { RedisStoreError } from './errors';

/** What every store takes: an ioredis client (the app keeps owning it) or a `redis://` URL (the store owns it). */
export interface RedisStoreOptions {
  redis: Redis | string;
  /** Prepended to every key and channel; give each account (API key) its own. */
  prefix?: string;
  /** Longest wait for one Redis operation before it fails with `RedisStoreError`. Default 2 000 ms. */
  operationTimeoutMs?: number;
}

export interface Connection {
  readonly client: Redis;
  /** Whether the store made the client (from a URL) and so must close it. */
  readonly owned: boolean;
}

export function connect(redis: Redis | string): Connection {
  if (typeof redis === 'string') {
    if (!/^rediss?:\/\//.test(redis)) {
      throw new ConfigurationError('redis must be an ioredis client or a redis:// (or rediss://) URL.');
    }
    // One retry per command and a bounded connect: a Redis outage becomes an error quickly
    // instead of a queue of commands that never answer.
    const client = new Redis(redis, { maxRetriesPerRequest: 1, connectTimeout: 2_000 });
    // Outages surface as each command's RedisStoreError; without a listener ioredis would also print them.
    client.on('error', () => {});
    return { client, owned: true };
  }
  if (!redis || typeof (redis as Partial<Redis>).duplicate !== 'function') {
    throw new ConfigurationError('redis must be an ioredis client or a redis:// URL.');
  }
  return { client: redis, owned: false };
}

/** `promise`, or a `RedisStoreError` once `ms` pass or the client fails; never leaves a timer. */
export async function withinTime<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisStoreError(`Redis did not answer ${what} within ${ms} ms.`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } catch (error) {
    if (error instanceof RedisStoreError) throw error;
    throw new RedisStoreError(`Redis refused ${what}.`, 'REDIS_UNAVAILABLE', error);
  } finally {
    clearTimeout(timer);
    // A command that lost the race may still reject later: that rejection is expected.
    promise.catch(() => {});
  }
}

export async function closeConnection(connection: Connection): Promise<void> {
  if (!connection.owned) return;
  await connection.client.quit().catch(() => connection.client.disconnect());
}
