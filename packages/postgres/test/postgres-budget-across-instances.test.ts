import { describeBudgetAcrossInstances } from '@mediagen/conformance';
import pg from 'pg';
import { PostgresBudgetStore, PostgresGenerationStore } from '../src/index';
import { DATABASE_URL, testSchema } from './support/postgres';

const db = await testSchema('budget_instances');
// The second instance's own pool, on the same tables: two apps' connections.
const other = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
const budget = `${db.schema}.budget`;
const ledger = db.table();

describeBudgetAcrossInstances({
  name: 'PostgreSQL',
  // Found by CI on a loaded machine (stop 40): after one wave a user's in_flight stayed above 0 for
  // 120 s (a reservation never settled), so this proof is not yet one for PostgreSQL. The store's
  // own conformance suite (atomic reservations across two pools included) still runs. Issue 34.
  knownFailure: 'a reservation left unsettled after a wave under CI load (issue 34)',
  budgetStores: () => [new PostgresBudgetStore({ pool: db.pool, table: budget }), new PostgresBudgetStore({ pool: other, table: budget })],
  // One ledger table shared by both, as the budget tables are.
  ledgerStores: () => [
    new PostgresGenerationStore({ pool: db.pool, table: ledger }),
    new PostgresGenerationStore({ pool: other, table: ledger }),
  ],
  close: async () => {
    await other.end();
    await db.drop();
  },
});
