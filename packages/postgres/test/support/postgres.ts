import pg from 'pg';

/** The test server (started by `scripts/ensure-services.mjs` when missing). */
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A schema of its own for one test run, so parallel runs never share tables; dropped by `drop()`.
 */
export async function testSchema(label: string) {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
  const schema = `mg_${label}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await pool.query(`CREATE SCHEMA ${schema}`);
  let n = 0;
  return {
    pool,
    schema,
    /** A fresh table name in the schema. */
    table: () => `${schema}.generations_${n++}`,
    async drop() {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  };
}
