import { describeBudgetStoreConformance } from '@mediagen/conformance';
import pg from 'pg';
import { PostgresBudgetStore } from '../src/index';
import { DATABASE_URL, testSchema } from './support/postgres';

const db = await testSchema('budget');
// A second instance's own pool, on the same tables.
const otherPool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
const tables = new WeakMap<PostgresBudgetStore, string>();
let n = 0;

describeBudgetStoreConformance({
  name: 'PostgresBudgetStore',
  create: (times) => {
    const table = `${db.schema}.budget_${n++}`;
    const store = new PostgresBudgetStore({ pool: db.pool, table, ...times });
    tables.set(store, table);
    return store;
  },
  peer: (store) => new PostgresBudgetStore({ pool: otherPool, table: tables.get(store as PostgresBudgetStore)! }),
  close: async () => {
    await otherPool.end();
    await db.drop();
  },
});
