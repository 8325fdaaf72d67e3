import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeLedgerRouteConformance } from '@mediagen/conformance';
import { afterAll } from 'vitest';
import { SqliteGenerationStore } from '../src/index';

// The app routes with ownership decided by the ledger over this store's own queries.
const directory = mkdtempSync(join(tmpdir(), 'mediagen-sqlite-routes-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let n = 0;

describeLedgerRouteConformance('SQLite', () => new SqliteGenerationStore({ filename: join(directory, `routes-${n++}.db`) }));
