import { isTerminalStatus, type LedgerStatus } from './record';

/**
 * What an observation does to a record: `advance` moves it to a later state, `same` is the
 * state it has (a duplicate, a replay, a re-read with fresh links: no transition), `stale` is
 * an earlier state arriving late (a slow poll after the webhook): ignored.
 */
export type Precedence = 'advance' | 'same' | 'stale';

const RANK: Readonly<Record<LedgerStatus, number>> = { submitting: 0, pending: 1, processing: 2, completed: 3, failed: 3 };

/**
 * The one rule every source (webhook, poll, `wait()`, submit) goes through:
 * submitting < pending < processing < terminal; a terminal state is never replaced (not even
 * by the other terminal state: the first one recorded is the one handlers saw); equal states
 * change nothing. Pure, so it is proven over random interleavings in `ledger-precedence.test.ts`.
 */
export function precedence(current: LedgerStatus, next: LedgerStatus): Precedence {
  if (current === next) return 'same';
  if (isTerminalStatus(current)) return 'stale';
  return RANK[next] > RANK[current] ? 'advance' : 'stale';
}
