import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCancelRaceAcrossInstances } from '@mediagen/conformance';
import { SqliteGenerationStore } from '../src/index';

const directory = mkdtempSync(join(tmpdir(), 'mediagen-sqlite-cancel-race-'));
const filename = join(directory, 'ledger.db');
const stores: SqliteGenerationStore[] = [];

describeCancelRaceAcrossInstances({
  name: 'SQLite (one file, two connections)',
  shares: 'ledger',
  ledgerStores: () => {
    stores.push(new SqliteGenerationStore({ filename }), new SqliteGenerationStore({ filename }));
    return [stores[0]!, stores[1]!];
  },
  close: async () => {
    for (const store of stores) await store.close();
    rmSync(directory, { recursive: true, force: true });
  },
});
