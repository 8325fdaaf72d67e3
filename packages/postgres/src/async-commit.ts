import type { StoredRow } from '@mediagen/core/internal';

/**
 * Joined into an `UPDATE` (`UPDATE … FROM ${ASYNC_COMMIT} WHERE …`), it commits that statement's
 * own transaction without waiting for the WAL flush: `set_config(…, true)` is local to the
 * statement's implicit transaction, read when it commits, and gone after. One statement, one
 * round trip, no `BEGIN`/`COMMIT`, nothing left behind on a pooled connection.
 */
export const ASYNC_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/**
 * True for the write that records what the service answered about a generation: its id, status
 * and resource (the ledger's `observe`, the only writer of `generation_id`: a submit's 202, a
 * poll, a webhook). That write may commit asynchronously; every other one waits for the disk.
 *
 * The promise it keeps: the intent (`insert`) is a durable commit before the service is called,
 * so a billed generation always has a row. Only the record of the answer skips the wait for the
 * disk's flush (on a submit, the second of its two commits).
 *
 * Why losing it is safe: only a crash of PostgreSQL or of its machine can lose it (an app crash
 * cannot), and only in the last moments before the crash: the walwriter flushes it within
 * 3 × `wal_writer_delay` (600 ms by default), and any later durable commit flushes it first, as
 * the WAL is one sequence (a later write never survives an earlier one lost). Recovery brings
 * back the row as it was before: a submit's intent, still `submitting`, which `reconcile()`
 * resends with its own Idempotency-Key once its lease lapses, and the service answers with the
 * original generation, unbilled (spec: idempotency rule 1); or an older status, which the next
 * poll reads again. Until then that id is unknown here (a webhook for it is dropped, as for any
 * 202 not yet recorded; the reconciler's poll makes up for it). What the app did (`notified`,
 * `outputs`), a refusal, a lease: all stay durable. test/postgres-crash.test.ts (`id-write-lost`)
 * replays the loss: billed once, finished, handed over once.
 */
export function recordsAnAnswer(columns: Partial<StoredRow>): boolean {
  return columns.generation_id !== undefined && columns.notified === undefined && columns.outputs === undefined;
}
