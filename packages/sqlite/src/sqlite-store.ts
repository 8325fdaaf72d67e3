import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fromStoredRow, STORED_COLUMNS, toStoredRow } from '@mediagen/core/internal';
import type { GenerationRecord, GenerationStore, ListOptions, RecordPatch } from '@mediagen/core/ledger';
import { openDatabase, type SqliteDatabase, type SqliteDriver, type SqliteStatement } from './driver';

export interface SqliteGenerationStoreOptions {
  /** The database file (created if missing, its folder too). `:memory:` for a throwaway one. */
  filename: string;
  /** Table name. Default `mediagen_generations`. */
  table?: string;
  /** Default `auto`: `node:sqlite` where Node has it, else libsql. */
  driver?: SqliteDriver;
  /**
   * `NORMAL` (default): a commit survives the process being killed (SIGKILL included), as the
   * WAL is written before the call returns; `FULL` also survives a power loss (one fsync per commit).
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long a write waits for another process's lock on the same file. Default 5 000 ms. */
  busyTimeoutMs?: number;
}

type Statements = Record<
  'insert' | 'get' | 'byId' | 'update' | 'list' | 'listAfter' | 'due' | 'claim' | 'release' | 'purgeRefused' | 'recentCompleted',
  SqliteStatement
>;

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The ledger's store in a SQLite file: the embedded default for one machine (the samples, `pnpm
 * demo`). Several processes may share the file (WAL, busy timeout); apps on many machines use
 * `@mediagen/postgres`. Opens lazily on first use; `close()` when done.
 */
export class SqliteGenerationStore implements GenerationStore {
  readonly #options: SqliteGenerationStoreOptions;
  #opened: Promise<{ db: SqliteDatabase; sql: Statements }> | undefined;
  /** Which binding opened the file, once open. */
  driver: 'node:sqlite' | 'libsql' | undefined;

  constructor(options: SqliteGenerationStoreOptions) {
    const table = options.table ?? 'mediagen_generations';
    if (!TABLE_NAME.test(table)) throw new TypeError(`Invalid table name: ${table.slice(0, 80)}`);
    if (typeof options.filename !== 'string' || options.filename === '') throw new TypeError('SqliteGenerationStore needs a filename.');
    this.#options = { ...options, table };
  }

  async insert(record: GenerationRecord): Promise<boolean> {
    const { sql } = await this.#open();
    const row = toStoredRow(record);
    return Number(sql.insert.run(...STORED_COLUMNS.map((c) => row[c])).changes) === 1;
  }

  async get(key: string): Promise<GenerationRecord | undefined> {
    return this.#one((await this.#open()).sql.get.get(key));
  }

  async getByGenerationId(id: string): Promise<GenerationRecord | undefined> {
    return this.#one((await this.#open()).sql.byId.get(id));
  }

  async update(key: string, version: number, patch: RecordPatch): Promise<GenerationRecord | undefined> {
    const { sql } = await this.#open();
    const current = this.#one(sql.get.get(key));
    if (!current || current.version !== version) return undefined;
    const next: GenerationRecord = { ...current, ...patch, version: version + 1 };
    const row = toStoredRow(next);
    // The version in the WHERE makes it a compare-and-set across processes sharing the file.
    const { changes } = sql.update.run(...STORED_COLUMNS.filter((c) => c !== 'key').map((c) => row[c]), key, version);
    return Number(changes) === 1 ? next : undefined;
  }

  async list(owner: string, { limit, after }: ListOptions): Promise<GenerationRecord[]> {
    const { sql } = await this.#open();
    const rows = after ? sql.listAfter.all(owner, after.created_at, after.created_at, after.key, limit) : sql.list.all(owner, limit);
    return rows.map((r) => fromStoredRow(r as Record<string, unknown>));
  }

  async due(now: number, limit: number): Promise<GenerationRecord[]> {
    const { sql } = await this.#open();
    return sql.due.all(now, now, limit).map((r) => fromStoredRow(r as Record<string, unknown>));
  }

  async claim(key: string, holder: string, until: number, now: number): Promise<boolean> {
    const { sql } = await this.#open();
    return Number(sql.claim.run(holder, until, key, holder, now).changes) === 1;
  }

  async release(key: string, holder: string): Promise<void> {
    (await this.#open()).sql.release.run(key, holder);
  }

  async purgeRefused(before: number, limit: number): Promise<number> {
    const { sql } = await this.#open();
    return Number(sql.purgeRefused.run(before, limit).changes);
  }

  async recentCompleted(limit: number): Promise<GenerationRecord[]> {
    const { sql } = await this.#open();
    return sql.recentCompleted.all(limit).map((r) => fromStoredRow(r as Record<string, unknown>));
  }

  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = undefined;
    if (opened) (await opened).db.close();
  }

  #one(row: unknown): GenerationRecord | undefined {
    return row ? fromStoredRow(row as Record<string, unknown>) : undefined;
  }

  #open(): Promise<{ db: SqliteDatabase; sql: Statements }> {
    this.#opened ??= (async () => {
      const { filename, table, driver = 'auto', synchronous = 'NORMAL', busyTimeoutMs = 5_000 } = this.#options;
      // `data/generations.db` on a fresh checkout: SQLite creates the file, never its folder.
      if (filename !== ':memory:' && !filename.startsWith('file:')) await mkdir(dirname(filename), { recursive: true });
      const opened = await openDatabase(filename, driver);
      this.driver = opened.driver;
      const db = opened.db;
      db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec(`PRAGMA synchronous = ${synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
      db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
        key TEXT PRIMARY KEY, owner TEXT NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL,
        generation_id TEXT UNIQUE, generation TEXT, error TEXT, unavailable INTEGER NOT NULL,
        notified INTEGER NOT NULL, abandoned INTEGER NOT NULL DEFAULT 0, outputs TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        next_check_at INTEGER NOT NULL, version INTEGER NOT NULL, lease_holder TEXT,
        lease_until INTEGER NOT NULL, open INTEGER NOT NULL)`);
      // A table made before a column existed gets it (with its default) on open.
      const has = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
      if (!has.has('abandoned')) db.exec(`ALTER TABLE ${table} ADD COLUMN abandoned INTEGER NOT NULL DEFAULT 0`);
      db.exec(`CREATE INDEX IF NOT EXISTS ${table}_owner ON ${table} (owner, created_at DESC, key DESC)`);
      db.exec(`CREATE INDEX IF NOT EXISTS ${table}_due ON ${table} (next_check_at) WHERE open = 1`);
      // Refused intents only (never a generation): what purgeRefused reads, small by nature.
      db.exec(`CREATE INDEX IF NOT EXISTS ${table}_refused ON ${table} (updated_at) WHERE generation_id IS NULL`);
      const columns = STORED_COLUMNS.join(', ');
      const sets = STORED_COLUMNS.filter((c) => c !== 'key')
        .map((c) => `${c} = ?`)
        .join(', ');
      const sql: Statements = {
        insert: db.prepare(
          `INSERT INTO ${table} (${columns}) VALUES (${STORED_COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (key) DO NOTHING`,
        ),
        get: db.prepare(`SELECT * FROM ${table} WHERE key = ?`),
        byId: db.prepare(`SELECT * FROM ${table} WHERE generation_id = ?`),
        update: db.prepare(`UPDATE ${table} SET ${sets} WHERE key = ? AND version = ?`),
        list: db.prepare(`SELECT * FROM ${table} WHERE owner = ? ORDER BY created_at DESC, key DESC LIMIT ?`),
        listAfter: db.prepare(
          `SELECT * FROM ${table} WHERE owner = ? AND (created_at < ? OR (created_at = ? AND key < ?)) ORDER BY created_at DESC, key DESC LIMIT ?`,
        ),
        due: db.prepare(`SELECT * FROM ${table} WHERE open = 1 AND next_check_at <= ? AND lease_until <= ? ORDER BY next_check_at LIMIT ?`),
        claim: db.prepare(`UPDATE ${table} SET lease_holder = ?, lease_until = ? WHERE key = ? AND (lease_holder = ? OR lease_until <= ?)`),
        release: db.prepare(`UPDATE ${table} SET lease_holder = NULL, lease_until = 0 WHERE key = ? AND lease_holder = ?`),
        // isPurgeable (core) in SQL.
        purgeRefused: db.prepare(
          `DELETE FROM ${table} WHERE key IN (SELECT key FROM ${table} WHERE generation_id IS NULL AND status = 'failed' AND notified = 1 AND updated_at < ? LIMIT ?)`,
        ),
        // Read when a ledger starts (and every few minutes): a scan, no index kept for it on every write.
        recentCompleted: db.prepare(`SELECT * FROM ${table} WHERE status = 'completed' ORDER BY updated_at DESC LIMIT ?`),
      };
      return { db, sql };
    })();
    return this.#opened;
  }
}
