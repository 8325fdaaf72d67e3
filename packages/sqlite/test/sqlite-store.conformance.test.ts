import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeGenerationStoreConformance } from '@mediagen/conformance';
import { SqliteGenerationStore } from '../src/index';

const directory = mkdtempSync(join(tmpdir(), 'mediagen-sqlite-'));
const stores: SqliteGenerationStore[] = [];
let n = 0;

describeGenerationStoreConformance({
  name: 'SqliteGenerationStore (file)',
  create: () => {
    const store = new SqliteGenerationStore({ filename: join(directory, `conformance-${n++}.db`) });
    stores.push(store);
    return store;
  },
  close: async () => {
    for (const store of stores) await store.close();
    rmSync(directory, { recursive: true, force: true });
  },
});
