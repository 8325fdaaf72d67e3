/**
 * The part of a synchronous SQLite binding the store uses. `node:sqlite`'s `DatabaseSync` and
 * libsql's `Database` (better-sqlite3's API) both have exactly this shape.
 */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SqliteDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  close(): unknown;
}

export type SqliteDriver = 'auto' | 'node:sqlite' | 'libsql';

/**
 * Opens `filename` with `node:sqlite` when this Node has it without a flag (22.13+, 23.4+), else
 * with libsql, whose prebuilt binary comes inside a registry package: nothing compiles at install.
 */
export async function openDatabase(
  filename: string,
  driver: SqliteDriver,
): Promise<{ db: SqliteDatabase; driver: 'node:sqlite' | 'libsql' }> {
  if (driver !== 'libsql') {
    const builtin = nodeSqlite();
    if (builtin) return { db: new builtin.DatabaseSync(filename) as SqliteDatabase, driver: 'node:sqlite' };
    if (driver === 'node:sqlite') throw new Error('node:sqlite is not available in this Node version (it needs 22.13 or later).');
  }
  const { default: Database } = await import('libsql');
  return { db: new Database(filename) as unknown as SqliteDatabase, driver: 'libsql' };
}

function nodeSqlite(): { DatabaseSync: new (filename: string) => unknown } | undefined {
  try {
    // getBuiltinModule (Node 20.16+) throws or answers undefined where the module is missing or flagged.
    const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
    return get?.('node:sqlite') as { DatabaseSync: new (filename: string) => unknown } | undefined;
  } catch {
    return undefined;
  }
}
