import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger } from '@mediagen/core/ledger';
import { startEmulator } from '@mediagen/emulator';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresGenerationStore } from '../src/index';
import { DATABASE_URL, testSchema } from './support/postgres';

const db = await testSchema('ledger');
const KEY = 'svc_live_pg';
const emulator = await startEmulator({
  port: 0,
  config: { timeScale: 0.001, accounts: [{ id: 'acct_pg', tier: 'ultimate', balance: 10_000, keys: [{ key: KEY }] }] },
});
afterAll(async () => {
  await emulator.close();
  await db.drop();
});

describe('the ledger on PostgreSQL, two instances', () => {
  it('each generation is polled by one instance per interval and handed over once; a submit whose answer was lost is finished by the other instance', async () => {
    const table = db.table();
    const reads: string[] = [];
    const fetchCounting: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if ((init?.method ?? 'GET') === 'GET' && url.includes('/api/v1/generations/')) reads.push(url.split('/').pop() as string);
      return fetch(input, init);
    };
    let now = Date.now();
    const handed: string[] = [];
    // Two app instances: each its own pool (its own connections), one table.
    const instance = (name: string) => {
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
      const store = new PostgresGenerationStore({ pool, table });
      const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, fetch: fetchCounting, maxRetries: 0 });
      const ledger = createGenerationLedger({
        client,
        store,
        instanceId: name,
        now: () => now,
        onTerminal: (g) => void handed.push(`${g.generation_id}:${g.status}`),
      });
      return { ledger, close: () => pool.end() };
    };
    const a = instance('a');
    const b = instance('b');
    try {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++)
        ids.push((await a.ledger.submit(`user-${i % 3}`, { model: 'image-fast', prompt: `pg ${i}` })).generation_id as string);
      // The seventh submit's 202 is lost on instance a (the service billed it).
      await fetch(`${emulator.url}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'generate', status: 500, when: 'after' }),
      });
      await a.ledger.submit('user-0', { model: 'image-fast', prompt: 'pg lost' }).catch(() => {});
      reads.length = 0;
      now += 2_000;
      const [ra, rb] = await Promise.all([a.ledger.reconcile(), b.ledger.reconcile()]);
      expect(ra.polled + rb.polled).toBe(6);
      expect(reads).toHaveLength(6);
      expect(new Set(reads).size).toBe(6);
      for (let i = 0; i < 300 && handed.length < 7; i++) {
        now += 61_000; // past the lost submit's lease, and one poll interval for the others
        await Promise.all([a.ledger.reconcile(), b.ledger.reconcile()]);
        if (handed.length < 7) await new Promise((r) => setImmediate(r));
      }
      const account = (await (await fetch(`${emulator.url}/__emulator/accounts/acct_pg`)).json()) as {
        ledger: { type: string; generation_id: string }[];
      };
      const billed = account.ledger.filter((l) => l.type === 'reserve').map((l) => l.generation_id);
      expect(billed).toHaveLength(7);
      expect(handed.map((h) => h.split(':')[0]).sort()).toEqual([...billed].sort());
      expect(handed.every((h) => h.endsWith(':completed'))).toBe(true);
      const page = await b.ledger.list('user-0', { limit: 2 });
      const rest = await b.ledger.list('user-0', { limit: 10, cursor: page.next_cursor });
      expect(page.generations.length + rest.generations.length).toBe(3);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
