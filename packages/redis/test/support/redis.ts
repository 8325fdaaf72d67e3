import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** The machine's Redis (or `REDIS_URL`): these tests run against a real server, never a mock. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A unique key prefix per test, so runs (and engineers) sharing one Redis never meet. */
export const uniquePrefix = (name: string) => `mediagen-test:${name}:${randomUUID()}:`;

/** A fresh connection; every one made is closed by `closeAll`. */
const made: Redis[] = [];
export function connection(): Redis {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  made.push(client);
  return client;
}

export async function closeAll(): Promise<void> {
  await Promise.all(made.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
}

/** Deletes every key under a prefix (what a Redis restart without persistence does to them). */
export async function wipe(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await client.del(...keys);
  } while (cursor !== '0');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
