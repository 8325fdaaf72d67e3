import type { GenerationRecord, RecordPatch } from './record';

/** Where a page of a list starts: after this record (exclusive), newest first. */
export interface ListCursor {
  created_at: number;
  key: string;
}

export interface ListOptions {
  limit: number;
  after?: ListCursor;
}

/**
 * The ledger's storage. Small and free of business rules (the ledger holds those), so an
 * implementation is a handful of statements: in memory (`MemoryGenerationStore`), SQLite
 * (`@mediagen/sqlite`), PostgreSQL (`@mediagen/postgres`). Every implementation passes the
 * store conformance suite (`describeGenerationStoreConformance` in `@mediagen/conformance`).
 *
 * Records go in and come out by value: a store never hands out an object it keeps.
 */
export interface GenerationStore {
  /** Writes a new record; `false` (nothing written) when its `key` exists. */
  insert(record: GenerationRecord): Promise<boolean>;
  get(key: string): Promise<GenerationRecord | undefined>;
  /** The record whose `generation_id` is `id`. */
  getByGenerationId(id: string): Promise<GenerationRecord | undefined>;
  /**
   * Compare-and-set: applies `patch` and bumps `version` only when the stored version is
   * `version`. Returns the updated record, or `undefined` when the version moved (or no such
   * record): the caller reads again and re-decides.
   */
  update(key: string, version: number, patch: RecordPatch): Promise<GenerationRecord | undefined>;
  /** The owner's records, newest first (`created_at`, then `key`, both descending). */
  list(owner: string, options: ListOptions): Promise<GenerationRecord[]>;
  /**
   * Up to `limit` records with work left (not terminal, or terminal and not `notified`) whose
   * `next_check_at` and `lease_until` are both at or before `now`, earliest `next_check_at` first.
   */
  due(now: number, limit: number): Promise<GenerationRecord[]>;
  /**
   * Atomically takes the lease: succeeds when it is free, lapsed (`lease_until <= now`) or
   * already `holder`'s, and then holds it until `until`. Does not change `version`.
   */
  claim(key: string, holder: string, until: number, now: number): Promise<boolean>;
  /** Gives the lease back if `holder` has it. */
  release(key: string, holder: string): Promise<void>;
  /**
   * Deletes up to `limit` refused intents (no `generation_id`, `failed`, `notified`: nothing was
   * billed and nothing is left to do) last updated before `before`, and returns how many. The
   * ledger's retention rule for refusals; a generation the service accepted is never deleted here.
   */
  purgeRefused(before: number, limit: number): Promise<number>;
  /**
   * Up to `limit` `completed` records, the most recently updated first: the render times the
   * ledger's estimates of time remaining are rebuilt from when it starts (and now and then, to
   * learn what other instances saw). Optional, so a store written before it still works: without
   * it, each instance learns only from the completions it records itself.
   */
  recentCompleted?(limit: number): Promise<GenerationRecord[]>;
}
