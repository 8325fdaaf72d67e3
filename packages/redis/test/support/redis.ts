import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** The machine's Redis (or `REDIS_URL`): these tests run against a real server, never a mock. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Every prefix made by `uniquePrefix`, so `cleanUp` deletes what the tests left. */
const prefixes: string[] = [];

/** A unique key prefix per test, so runs (and engineers) sharing one Redis never meet. */
export function uniquePrefix(name: string): string {
  const prefix = `mediagen-test:${name}:${randomUUID()}:`;
  prefixes.push(prefix);
  return prefix;
}

/** A fresh connection; every one made is closed by `cleanUp`. */
const made: Redis[] = [];
export function connection(): Redis {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  made.push(client);
  return client;
}

/**
 * Deletes every key under the prefixes made so far (tests use leases and windows far longer than
 * they run, and some keys have no TTL), then closes every connection made.
 */
export async function cleanUp(): Promise<void> {
  const used = prefixes.splice(0);
  if (used.length > 0) {
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      for (const prefix of used) await wipe(admin, prefix);
    } finally {
      await admin.quit().catch(() => admin.disconnect());
    }
  }
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
