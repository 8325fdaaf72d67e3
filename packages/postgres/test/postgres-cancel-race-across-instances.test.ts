import { describeCancelRaceAcrossInstances } from '@mediagen/conformance';
import pg from 'pg';
import { PostgresGenerationStore } from '../src/index';
import { DATABASE_URL, testSchema } from './support/postgres';

const db = await testSchema('cancel_race');
// The second instance's own pool, on the same table: two apps' connections.
const other = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
const table = db.table();

describeCancelRaceAcrossInstances({
  name: 'PostgreSQL',
  shares: 'ledger',
  ledgerStores: () => [new PostgresGenerationStore({ pool: db.pool, table }), new PostgresGenerationStore({ pool: other, table })],
  close: async () => {
    await other.end();
    await db.drop();
  },
});
