import { describeLedgerRouteConformance } from '@mediagen/conformance';
import { afterAll } from 'vitest';
import { PostgresGenerationStore } from '../src/index';
import { testSchema } from './support/postgres';

// The app routes with ownership decided by the ledger over this store's own queries, in a schema of this run's own.
const db = await testSchema('routes');
afterAll(() => db.drop());

describeLedgerRouteConformance('PostgreSQL', () => new PostgresGenerationStore({ pool: db.pool, table: db.table() }));
