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
