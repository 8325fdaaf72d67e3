import { fromStoredRow, patchColumns, STORED_COLUMNS, toStoredRow } from '@mediagen/core/internal';
import type { GenerationRecord, GenerationStore, ListOptions, RecordPatch } from '@mediagen/core/ledger';
import { ASYNC_COMMIT, recordsAnAnswer } from './async-commit';
import { lostPreparedStatement, statementName } from './statement-name';

/**
 * What the store needs of a `pg.Pool` (or a `pg.Client`): parameterised queries, named ones
 * (`{ name, text, values }`, as `pg` takes them) unless `prepare: false`.
 */
export interface Queryable {
  query(
    query: string | { name: string; text: string; values: unknown[] },
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

export interface PostgresGenerationStoreOptions {
  /** A `pg.Pool` you own (and close), or a connection string (the store then owns its pool: `close()`). */
  pool: Queryable | string;
  /** Table name, optionally schema-qualified (`app.generations`). Default `mediagen_generations`. */
  table?: string;
  /**
   * Names each statement, so PostgreSQL parses and plans it once per connection instead of on
   * every call (0.1–0.3 ms a statement on the bench's loaded 2-core machine). Default true. Behind a pooler in
   * transaction mode that loses named statements (PgBouncer before 1.21) the store notices the
   * first such error and goes on unnamed; a `Queryable` of your own that takes only
   * `(text, values)` needs `false`.
   */
  prepare?: boolean;
}

const TABLE_NAME = /^(?:[a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,62}$/;

/**
 * The ledger's store on PostgreSQL, for apps on many instances: `update` is one conditional
 * `UPDATE … WHERE version = $n`, `claim` one conditional `UPDATE` of the lease, so any number of
 * instances share the table safely. The table is created on first use (`CREATE TABLE IF NOT EXISTS`).
 * A submit costs two statements, two round trips, one wait for the disk: the intent's `INSERT`
 * (a durable commit, before the call) and the `UPDATE` recording the answer (an asynchronous one).
 */
export class PostgresGenerationStore implements GenerationStore {
  readonly #table: string;
  readonly #source: Queryable | string;
  #ready: Promise<Queryable> | undefined;
  #ownedPool: { end(): Promise<void> } | undefined;
  #prepare: boolean;
  /** Statement names by SQL text (a store writes a bounded set of texts: one per column set). */
  readonly #names = new Map<string, string>();

  constructor(options: PostgresGenerationStoreOptions) {
    const table = options.table ?? 'mediagen_generations';
    if (!TABLE_NAME.test(table)) throw new TypeError(`Invalid table name (lowercase letters, digits, _): ${table.slice(0, 80)}`);
    if (!options.pool) throw new TypeError('PostgresGenerationStore needs { pool }: a pg.Pool or a connection string.');
    this.#table = table;
    this.#source = options.pool;
    this.#prepare = options.prepare ?? true;
  }

  async insert(record: GenerationRecord): Promise<boolean> {
    const row = toStoredRow(record);
    const placeholders = STORED_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    const result = await this.#query(
      `INSERT INTO ${this.#table} (${STORED_COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT (key) DO NOTHING`,
      STORED_COLUMNS.map((c) => row[c]),
    );
    return result.rowCount === 1;
  }

  async get(key: string): Promise<GenerationRecord | undefined> {
    return one(await this.#query(`SELECT * FROM ${this.#table} WHERE key = $1`, [key]));
  }

  async getByGenerationId(id: string): Promise<GenerationRecord | undefined> {
    return one(await this.#query(`SELECT * FROM ${this.#table} WHERE generation_id = $1`, [id]));
  }

  async update(key: string, version: number, patch: RecordPatch): Promise<GenerationRecord | undefined> {
    // One statement (one round trip): only the patched columns, the version bumped, and `open`
    // computed from the row's own status/notified where the patch leaves them.
    const columns = patchColumns(patch);
    const names = Object.keys(columns) as (keyof typeof columns)[];
    const values: unknown[] = names.map((c) => columns[c]);
    const value = (c: 'status' | 'notified') => (c in columns ? `$${names.indexOf(c) + 1}::${c === 'status' ? 'text' : 'smallint'}` : c);
    const sets = [
      ...names.map((c, i) => `${c} = $${i + 1}`),
      'version = version + 1',
      `open = CASE WHEN ${value('status')} IN ('completed', 'failed') AND ${value('notified')} = 1 THEN 0 ELSE 1 END`,
    ];
    // The record of a service's answer commits without waiting for the disk (see recordsAnAnswer).
    const t = this.#table;
    const from = recordsAnAnswer(columns) ? ` FROM ${ASYNC_COMMIT}` : '';
    const result = await this.#query(
      `UPDATE ${t} SET ${sets.join(', ')}${from} WHERE key = $${names.length + 1} AND version = $${names.length + 2} RETURNING ${t}.*`,
      [...values, key, version],
    );
    return one(result);
  }

  async list(owner: string, { limit, after }: ListOptions): Promise<GenerationRecord[]> {
    const result = after
      ? await this.#query(
          `SELECT * FROM ${this.#table} WHERE owner = $1 AND (created_at, key) < ($2, $3) ORDER BY created_at DESC, key DESC LIMIT $4`,
          [owner, after.created_at, after.key, limit],
        )
      : await this.#query(`SELECT * FROM ${this.#table} WHERE owner = $1 ORDER BY created_at DESC, key DESC LIMIT $2`, [owner, limit]);
    return result.rows.map(fromStoredRow);
  }

  async due(now: number, limit: number): Promise<GenerationRecord[]> {
    const result = await this.#query(
      `SELECT * FROM ${this.#table} WHERE open = 1 AND next_check_at <= $1 AND lease_until <= $1 ORDER BY next_check_at LIMIT $2`,
      [now, limit],
    );
    return result.rows.map(fromStoredRow);
  }

  async claim(key: string, holder: string, until: number, now: number): Promise<boolean> {
    const result = await this.#query(
      `UPDATE ${this.#table} SET lease_holder = $1, lease_until = $2 WHERE key = $3 AND (lease_holder = $1 OR lease_until <= $4)`,
      [holder, until, key, now],
    );
    return result.rowCount === 1;
  }

  async release(key: string, holder: string): Promise<void> {
    await this.#query(`UPDATE ${this.#table} SET lease_holder = NULL, lease_until = 0 WHERE key = $1 AND lease_holder = $2`, [key, holder]);
  }

  async purgeRefused(before: number, limit: number): Promise<number> {
    // isPurgeable (core) in SQL.
    const t = this.#table;
    const result = await this.#query(
      `DELETE FROM ${t} WHERE key IN (SELECT key FROM ${t} WHERE generation_id IS NULL AND status = 'failed' AND notified = 1 AND updated_at < $1 LIMIT $2)`,
      [before, limit],
    );
    return result.rowCount ?? 0;
  }

  async recentCompleted(limit: number): Promise<GenerationRecord[]> {
    // Read when a ledger starts (and every few minutes): a scan, no index kept for it on every write.
    const result = await this.#query(`SELECT * FROM ${this.#table} WHERE status = 'completed' ORDER BY updated_at DESC LIMIT $1`, [limit]);
    return result.rows.map(fromStoredRow);
  }

  /** Ends the pool the store made from a connection string; a pool you passed stays yours. */
  async close(): Promise<void> {
    const owned = this.#ownedPool;
    this.#ownedPool = undefined;
    this.#ready = undefined;
    await owned?.end();
  }

  async #query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }> {
    const db = await this.#open();
    if (!this.#prepare) return db.query(text, values);
    try {
      let name = this.#names.get(text);
      if (name === undefined) this.#names.set(text, (name = statementName(text)));
      return await db.query({ name, text, values });
    } catch (error) {
      if (!lostPreparedStatement(error)) throw error;
      // A pooler that does not keep named statements: nothing ran; unnamed from now on.
      this.#prepare = false;
      return db.query(text, values);
    }
  }

  #open(): Promise<Queryable> {
    this.#ready ??= (async () => {
      let db: Queryable;
      if (typeof this.#source === 'string') {
        const { default: pg } = await import('pg');
        const pool = new pg.Pool({ connectionString: this.#source });
        this.#ownedPool = pool;
        db = pool as unknown as Queryable;
      } else {
        db = this.#source;
      }
      const t = this.#table;
      const index = t.replace('.', '_');
      // One statement list, one implicit transaction, under a lock on the table's name: instances
      // starting together would otherwise race in CREATE … IF NOT EXISTS (PostgreSQL answers the
      // loser with a unique violation on its catalog, and its first write fails). Keys compare
      // byte-wise (COLLATE "C"), as the other stores order them; times are ms in int8.
      await db.query(`SELECT pg_advisory_xact_lock(hashtext('mediagen_store:${t}'));
        CREATE TABLE IF NOT EXISTS ${t} (
        key TEXT COLLATE "C" PRIMARY KEY, owner TEXT NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL,
        generation_id TEXT UNIQUE, generation TEXT, error TEXT, unavailable SMALLINT NOT NULL,
        notified SMALLINT NOT NULL, abandoned SMALLINT NOT NULL DEFAULT 0, outputs TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
        next_check_at BIGINT NOT NULL, version INTEGER NOT NULL, lease_holder TEXT,
        lease_until BIGINT NOT NULL, open SMALLINT NOT NULL);
        ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS abandoned SMALLINT NOT NULL DEFAULT 0;
        CREATE INDEX IF NOT EXISTS ${index}_owner ON ${t} (owner, created_at DESC, key DESC);
        CREATE INDEX IF NOT EXISTS ${index}_due ON ${t} (next_check_at) WHERE open = 1;
        CREATE INDEX IF NOT EXISTS ${index}_refused ON ${t} (updated_at) WHERE generation_id IS NULL;`);
      return db;
    })();
    this.#ready.catch(() => {
      this.#ready = undefined;
    });
    return this.#ready;
  }
}

function one(result: { rows: Record<string, unknown>[] }): GenerationRecord | undefined {
  const row = result.rows[0];
  return row ? fromStoredRow(row) : undefined;
}
