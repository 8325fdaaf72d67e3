import { afterAll, describe, expect, it } from 'vitest';
import { PostgresGenerationStore } from '../src/index';
import { testSchema } from './support/postgres';

const db = await testSchema('migrate');
afterAll(() => db.drop());

describe('PostgresGenerationStore: a table made by an earlier version', () => {
  it('gains the abandoned column on open; its rows read as not abandoned and can be marked', async () => {
    const table = db.table();
    // The table as it was before `abandoned` (ledger.cancel), with one row in it.
    await db.pool.query(`CREATE TABLE ${table} (
      key TEXT COLLATE "C" PRIMARY KEY, owner TEXT NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL,
      generation_id TEXT UNIQUE, generation TEXT, error TEXT, unavailable SMALLINT NOT NULL,
      notified SMALLINT NOT NULL, outputs TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
      next_check_at BIGINT NOT NULL, version INTEGER NOT NULL, lease_holder TEXT,
      lease_until BIGINT NOT NULL, open SMALLINT NOT NULL)`);
    await db.pool.query(`INSERT INTO ${table} VALUES ('old-key', 'user-a', '{"model":"image-fast"}', 'pending', 'gen_old', NULL, NULL,
      0, 0, NULL, 1, 1, 1, 3, NULL, 0, 1)`);
    const store = new PostgresGenerationStore({ pool: db.pool, table });
    expect(await store.get('old-key')).toMatchObject({ status: 'pending', generation_id: 'gen_old', abandoned: false, version: 3 });
    expect(await store.update('old-key', 3, { abandoned: true })).toMatchObject({ abandoned: true, version: 4 });
    // A second instance opening the same table adds nothing twice.
    const again = new PostgresGenerationStore({ pool: db.pool, table });
    expect((await again.getByGenerationId('gen_old'))?.abandoned).toBe(true);
  });
});
