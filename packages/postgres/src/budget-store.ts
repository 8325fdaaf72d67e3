import type { BudgetCaps, BudgetReserveInput, BudgetStore, BudgetStoreTimes, BudgetUsage, BudgetVerdict } from '@mediagen/core/server';
import { BUDGET_MINUTE_MS, DEFAULT_IN_FLIGHT_TTL_MS, DEFAULT_KEY_TTL_MS, refusedBy, usageOf } from '@mediagen/core/server';
import type { Queryable } from './postgres-store';

/** What the budget store needs of a `pg.Pool`: queries, and a connection of its own for a transaction. */
export interface TransactionPool extends Queryable {
  connect(): Promise<Queryable & { release(error?: unknown): void }>;
}

export interface PostgresBudgetStoreOptions extends BudgetStoreTimes {
  /** A `pg.Pool` you own (and close), or a connection string (the store then owns its pool: `close()`). */
  pool: TransactionPool | string;
  /** Name of the tables' prefix, optionally schema-qualified: `<table>_users`, `<table>_reservations`, `<table>_ended`. Default `mediagen_budget`. */
  table?: string;
}

const TABLE_NAME = /^(?:[a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,48}$/;
/** A reservation's state: reserved (its slot held), settled (charged), released (given back). */
const RESERVED = 0;
const SETTLED = 1;
const RELEASED = 2;

/**
 * `BudgetStore` on PostgreSQL, for apps on many instances. A reservation is one transaction
 * holding the user's row lock (`SELECT … FOR UPDATE`): check and count happen under it, so
 * two instances can never both take a user's last credit or slot. `release` is one statement;
 * `bind` and `settle` a transaction holding a lock on the generation id. The tables are created on first use.
 */
export class PostgresBudgetStore implements BudgetStore {
  readonly #users: string;
  readonly #reservations: string;
  readonly #ended: string;
  readonly #source: TransactionPool | string;
  readonly #flightTtlMs: number;
  readonly #keyTtlMs: number;
  #ready: Promise<TransactionPool> | undefined;
  #ownedPool: { end(): Promise<void> } | undefined;

  constructor(options: PostgresBudgetStoreOptions) {
    const table = options.table ?? 'mediagen_budget';
    if (!TABLE_NAME.test(table)) throw new TypeError(`Invalid table name (lowercase letters, digits, _): ${table.slice(0, 80)}`);
    if (!options.pool) throw new TypeError('PostgresBudgetStore needs { pool }: a pg.Pool or a connection string.');
    this.#users = `${table}_users`;
    this.#reservations = `${table}_reservations`;
    this.#ended = `${table}_ended`;
    this.#source = options.pool;
    this.#flightTtlMs = options.inFlightTtlMs ?? DEFAULT_IN_FLIGHT_TTL_MS;
    this.#keyTtlMs = options.keyTtlMs ?? DEFAULT_KEY_TTL_MS;
  }

  async reserve({ owner, key, credits, extraCredits, caps, now }: BudgetReserveInput): Promise<BudgetVerdict> {
    const pool = await this.#open();
    const db = await pool.connect();
    const period = Math.floor(now / caps.periodMs);
    const [price, extra] = [whole(credits), whole(extraCredits)];
    let failed: unknown;
    try {
      await db.query('BEGIN');
      // The user's row, locked until COMMIT: every reservation of this user waits here, on any instance.
      await db.query(`INSERT INTO ${this.#users} (owner, period, used) VALUES ($1, $2, 0) ON CONFLICT (owner) DO NOTHING`, [owner, period]);
      const user = (await db.query(`SELECT period, used FROM ${this.#users} WHERE owner = $1 FOR UPDATE`, [owner])).rows[0]!;
      const counts = await this.#counts(db, owner, Number(user.period) === period ? Number(user.used) : 0, now);
      const existing = (await db.query(`SELECT state FROM ${this.#reservations} WHERE key = $1`, [key])).rows[0];
      const usage = usageOf(counts, caps, now);
      if (existing && Number(existing.state) !== RELEASED) {
        await db.query('COMMIT');
        return { ok: true, replay: true, usage };
      }
      const limit = refusedBy(counts, caps, price + extra);
      if (limit) {
        await db.query('COMMIT');
        return { ok: false, limit, usage };
      }
      await db.query(`UPDATE ${this.#users} SET period = $2, used = $3 WHERE owner = $1`, [
        owner,
        period,
        counts.usedCredits + price + extra,
      ]);
      await db.query(
        `INSERT INTO ${this.#reservations} (key, owner, period, credits, extra, state, generation_id, counted_at, lapses_at)
         VALUES ($1, $2, $3, $4, $5, ${RESERVED}, NULL, $6, $7)
         ON CONFLICT (key) DO UPDATE SET owner = $2, period = $3, credits = $4, extra = $5, state = ${RESERVED}, generation_id = NULL, counted_at = $6, lapses_at = $7`,
        [key, owner, period, price, extra, now, now + this.#flightTtlMs],
      );
      // Keys past their TTL are forgotten here, a user's own at a time (bounded work per reserve).
      await db.query(`DELETE FROM ${this.#reservations} WHERE owner = $1 AND counted_at < $2`, [owner, now - this.#keyTtlMs]);
      await db.query('COMMIT');
      const after = {
        ...counts,
        usedCredits: counts.usedCredits + price + extra,
        inFlight: counts.inFlight + 1,
        submitsLastMinute: counts.submitsLastMinute + 1,
      };
      return { ok: true, replay: false, usage: usageOf({ ...after, oldestSubmit: counts.oldestSubmit ?? now }, caps, now) };
    } catch (error) {
      failed = error;
      await db.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      // A connection whose transaction failed oddly is not handed back to the pool as if clean.
      db.release(failed);
    }
  }

  async bind(key: string, generationId: string): Promise<void> {
    await this.#onGeneration(generationId, async (db) => {
      const bound = await db.query(`UPDATE ${this.#reservations} SET generation_id = $2 WHERE key = $1`, [key, generationId]);
      if (!bound.rowCount) return;
      // The end came first (the webhook outran the 202): settled now.
      const ended = (await db.query(`DELETE FROM ${this.#ended} WHERE generation_id = $1 RETURNING credits`, [generationId])).rows[0];
      if (ended) await this.#settleBound(db, generationId, ended.credits === null ? null : Number(ended.credits));
    });
  }

  async release(key: string): Promise<void> {
    // One statement: the reservation's row and then its user's row, each locked as it is updated.
    await (await this.#open()).query(
      `WITH r AS (UPDATE ${this.#reservations} SET state = ${RELEASED} WHERE key = $1 AND state = ${RESERVED} AND generation_id IS NULL RETURNING owner, period, credits + extra AS back)
       UPDATE ${this.#users} u SET used = u.used - r.back FROM r WHERE u.owner = r.owner AND u.period = r.period`,
      [key],
    );
  }

  async settle(generationId: string, credits: number | null, now: number): Promise<boolean> {
    const charged = credits === null ? null : whole(credits);
    return this.#onGeneration(generationId, async (db) => {
      const bound = await db.query(`SELECT state FROM ${this.#reservations} WHERE generation_id = $1`, [generationId]);
      if (bound.rows.length === 0) {
        // Not bound yet: the end is kept for the bind (or forgotten with old keys).
        await db.query(
          `INSERT INTO ${this.#ended} (generation_id, credits, at) VALUES ($1, $2, $3) ON CONFLICT (generation_id) DO NOTHING`,
          [generationId, charged, now],
        );
        await db.query(`DELETE FROM ${this.#ended} WHERE at < $1`, [now - this.#keyTtlMs]);
        return false;
      }
      return this.#settleBound(db, generationId, charged);
    });
  }

  /** One statement: the reservation's row, then its user's row, each locked as it is updated. */
  async #settleBound(db: Queryable, generationId: string, charged: number | null): Promise<boolean> {
    const result = await db.query(
      `WITH r AS (UPDATE ${this.#reservations} SET state = ${SETTLED} WHERE generation_id = $1 AND state = ${RESERVED} RETURNING owner, period, credits),
       u AS (UPDATE ${this.#users} u SET used = u.used + ($2::bigint - r.credits) FROM r WHERE $2::bigint IS NOT NULL AND u.owner = r.owner AND u.period = r.period RETURNING 1)
       SELECT count(*)::int AS settled FROM r`,
      [generationId, charged],
    );
    return Number(result.rows[0]?.settled) === 1;
  }

  /**
   * `work` in a transaction holding a lock on the generation id: a bind and a settle of the same
   * generation never interleave, so an end that comes before its bind is kept, and found by it.
   */
  async #onGeneration<T>(generationId: string, work: (db: Queryable) => Promise<T>): Promise<T> {
    const db = await (await this.#open()).connect();
    let failed: unknown;
    try {
      await db.query('BEGIN');
      await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7))', [`mediagen_budget:${generationId}`]);
      const result = await work(db);
      await db.query('COMMIT');
      return result;
    } catch (error) {
      failed = error;
      await db.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      db.release(failed);
    }
  }

  async usage(owner: string, caps: BudgetCaps, now: number): Promise<BudgetUsage> {
    const db = await this.#open();
    const period = Math.floor(now / caps.periodMs);
    const user = (await db.query(`SELECT period, used FROM ${this.#users} WHERE owner = $1`, [owner])).rows[0];
    return usageOf(await this.#counts(db, owner, user && Number(user.period) === period ? Number(user.used) : 0, now), caps, now);
  }

  /** Ends the pool the store made from a connection string; a pool you passed stays yours. */
  async close(): Promise<void> {
    const owned = this.#ownedPool;
    this.#ownedPool = undefined;
    this.#ready = undefined;
    await owned?.end();
  }

  async #counts(db: Queryable, owner: string, usedCredits: number, now: number) {
    const row = (
      await db.query(
        `SELECT count(*) FILTER (WHERE state = ${RESERVED} AND lapses_at > $2)::int AS in_flight,
                count(*) FILTER (WHERE counted_at > $3)::int AS hits,
                min(counted_at) FILTER (WHERE counted_at > $3) AS oldest
         FROM ${this.#reservations} WHERE owner = $1`,
        [owner, now, now - BUDGET_MINUTE_MS],
      )
    ).rows[0]!;
    return {
      usedCredits,
      inFlight: Number(row.in_flight),
      submitsLastMinute: Number(row.hits),
      oldestSubmit: row.oldest === null || row.oldest === undefined ? null : Number(row.oldest),
    };
  }

  #open(): Promise<TransactionPool> {
    this.#ready ??= (async () => {
      let db: TransactionPool;
      if (typeof this.#source === 'string') {
        const { default: pg } = await import('pg');
        const pool = new pg.Pool({ connectionString: this.#source });
        this.#ownedPool = pool;
        db = pool as unknown as TransactionPool;
      } else {
        db = this.#source;
      }
      const [u, r] = [this.#users, this.#reservations];
      const index = r.replace('.', '_');
      // Under a lock on the tables' name: instances starting together would race in CREATE … IF NOT EXISTS.
      await db.query(`SELECT pg_advisory_xact_lock(hashtext('mediagen_budget:${r}'));
        CREATE TABLE IF NOT EXISTS ${u} (owner TEXT COLLATE "C" PRIMARY KEY, period BIGINT NOT NULL, used BIGINT NOT NULL);
        CREATE TABLE IF NOT EXISTS ${r} (
          key TEXT COLLATE "C" PRIMARY KEY, owner TEXT COLLATE "C" NOT NULL, period BIGINT NOT NULL, credits BIGINT NOT NULL,
          extra BIGINT NOT NULL, state SMALLINT NOT NULL, generation_id TEXT UNIQUE, counted_at BIGINT NOT NULL, lapses_at BIGINT NOT NULL);
        CREATE INDEX IF NOT EXISTS ${index}_owner ON ${r} (owner, counted_at);
        CREATE TABLE IF NOT EXISTS ${this.#ended} (generation_id TEXT COLLATE "C" PRIMARY KEY, credits BIGINT, at BIGINT NOT NULL);`);
      return db;
    })();
    this.#ready.catch(() => {
      this.#ready = undefined;
    });
    return this.#ready;
  }
}

/** A whole, non-negative number of credits. */
function whole(credits: number): number {
  return Number.isFinite(credits) && credits > 0 ? Math.ceil(credits) : 0;
}
