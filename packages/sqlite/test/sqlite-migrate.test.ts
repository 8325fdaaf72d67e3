import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/driver';
import { SqliteGenerationStore } from '../src/index';

const directory = mkdtempSync(join(tmpdir(), 'mediagen-sqlite-migrate-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('SqliteGenerationStore: a table made by an earlier version', () => {
  it('gains the abandoned column on open; its rows read as not abandoned and can be marked', async () => {
    const filename = join(directory, 'old.db');
    // The table as it was before `abandoned` (ledger.cancel), with one row in it.
    const { db } = await openDatabase(filename, 'auto');
    db.exec(`CREATE TABLE generations (
      key TEXT PRIMARY KEY, owner TEXT NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL,
      generation_id TEXT UNIQUE, generation TEXT, error TEXT, unavailable INTEGER NOT NULL,
      notified INTEGER NOT NULL, outputs TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
      next_check_at INTEGER NOT NULL, version INTEGER NOT NULL, lease_holder TEXT,
      lease_until INTEGER NOT NULL, open INTEGER NOT NULL)`);
    db.exec(`INSERT INTO generations VALUES ('old-key', 'user-a', '{"model":"image-fast"}', 'pending', 'gen_old', NULL, NULL,
      0, 0, NULL, 1, 1, 1, 3, NULL, 0, 1)`);
    db.close();
    const store = new SqliteGenerationStore({ filename, table: 'generations' });
    try {
      expect(await store.get('old-key')).toMatchObject({ status: 'pending', generation_id: 'gen_old', abandoned: false, version: 3 });
      expect(await store.update('old-key', 3, { abandoned: true })).toMatchObject({ abandoned: true, version: 4 });
      expect((await store.getByGenerationId('gen_old'))?.abandoned).toBe(true);
    } finally {
      await store.close();
    }
    // Opened again: the column is there, nothing is added twice.
    const again = new SqliteGenerationStore({ filename, table: 'generations' });
    try {
      expect((await again.get('old-key'))?.abandoned).toBe(true);
    } finally {
      await again.close();
    }
  });
});
