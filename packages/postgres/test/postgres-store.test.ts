import { makeRecord } from '@mediagen/conformance';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresGenerationStore, type Queryable } from '../src/index';
import { DATABASE_URL, testSchema } from './support/postgres';

const db = await testSchema('store');
afterAll(() => db.drop());

/** One connection of its own (so a test sees what its statements left on it), closed after. */
async function connection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  return client;
}

describe('PostgresGenerationStore: instances starting together', () => {
  it('eight stores opening one new table at once all write (no catalog race in CREATE … IF NOT EXISTS)', async () => {
    const table = db.table();
    const pools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: DATABASE_URL, max: 1 }));
    try {
      const stores = pools.map((pool) => new PostgresGenerationStore({ pool, table }));
      const records = stores.map(() => makeRecord());
      expect(await Promise.all(stores.map((store, i) => store.insert(records[i] as never)))).toEqual(stores.map(() => true));
      for (const r of records) expect((await stores[0]?.get(r.key))?.key).toBe(r.key);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});

describe('PostgresGenerationStore: what each write waits for', () => {
  it('commits the record of an answer without waiting for the disk, every other write durably', async () => {
    const statements: string[] = [];
    const recording: Queryable = {
      query: (query, values) => {
        statements.push(typeof query === 'string' ? query : query.text);
        return db.pool.query(query as string, values);
      },
    };
    const store = new PostgresGenerationStore({ pool: recording, table: db.table(), prepare: false });
    const record = makeRecord();
    await store.insert(record);
    const sent = (from: number) => statements.slice(from).filter((s) => !/^\s*(CREATE |SELECT pg_advisory_xact_lock)/.test(s));
    const waits = (text: string) => !text.includes('synchronous_commit');

    let from = statements.length;
    await store.insert(makeRecord());
    expect(sent(from).map(waits)).toEqual([true]);

    from = statements.length;
    await store.update(record.key, 0, { status: 'pending', generation_id: 'gen-async-1', updated_at: 1 });
    expect(sent(from).map(waits)).toEqual([false]);

    // What the app did, a refusal, the schedule, a lease: durable.
    from = statements.length;
    await store.update(record.key, 1, { notified: true, updated_at: 2 });
    await store.update(record.key, 2, { outputs: ['s3://a'], updated_at: 3 });
    await store.update(record.key, 3, { status: 'failed', error: { code: 'X', message: 'no', retryable: false } });
    await store.update(record.key, 4, { next_check_at: 9 });
    await store.claim(record.key, 'me', 10, 0);
    await store.release(record.key, 'me');
    expect(sent(from).map(waits)).toEqual([true, true, true, true, true, true]);
    expect(await store.get(record.key)).toMatchObject({ version: 5, generation_id: 'gen-async-1', notified: true, status: 'failed' });
  });

  it('leaves nothing on the connection: the next transaction on it commits durably again', async () => {
    const client = await connection();
    try {
      const store = new PostgresGenerationStore({ pool: client, table: db.table() });
      const record = makeRecord();
      await store.insert(record);
      const updated = await store.update(record.key, 0, { status: 'pending', generation_id: 'gen-async-2' });
      expect(updated).toMatchObject({ version: 1, generation_id: 'gen-async-2' });
      expect(Object.keys(updated as object)).not.toContain('async_commit');
      expect((await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('on');
    } finally {
      await client.end();
    }
  });
});

describe('PostgresGenerationStore: named statements', () => {
  it('goes on unnamed when the server lost its named statements (a pooler in transaction mode)', async () => {
    const client = await connection();
    try {
      const store = new PostgresGenerationStore({ pool: client, table: db.table() });
      const record = makeRecord();
      await store.insert(record);
      expect((await store.get(record.key))?.key).toBe(record.key);
      const named = await client.query('SELECT count(*)::int AS n FROM pg_prepared_statements');
      expect(named.rows[0].n).toBeGreaterThanOrEqual(2);
      // As a pooler handing the next transaction another server connection: pg believes the
      // statements are prepared on this one, the server no longer has them.
      await client.query('DEALLOCATE ALL');
      expect(await store.get(record.key)).toEqual(record);
      expect(await store.update(record.key, 0, { status: 'pending', generation_id: 'gen-named-1' })).toMatchObject({ version: 1 });
      const after = await client.query('SELECT count(*)::int AS n FROM pg_prepared_statements');
      expect(after.rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('prepare: false sends plain (text, values) queries, for a Queryable that takes only those', async () => {
    const plain = {
      query: (text: string, values?: unknown[]) => {
        if (typeof text !== 'string') throw new TypeError('text only');
        return db.pool.query(text, values);
      },
    };
    const store = new PostgresGenerationStore({ pool: plain, table: db.table(), prepare: false });
    const record = makeRecord();
    expect(await store.insert(record)).toBe(true);
    expect(await store.update(record.key, 0, { status: 'pending', generation_id: 'gen-plain-1' })).toMatchObject({ version: 1 });
    expect((await store.getByGenerationId('gen-plain-1'))?.key).toBe(record.key);
  });
});
