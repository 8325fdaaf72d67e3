import { CONTENT_POLICY_VIOLATION, type Generation } from '../../types';
import type { BudgetStore } from './budget-store';

/** A generation as any source tells its end: a status read, a ledger record, a webhook event. */
export interface EndedGeneration {
  generation_id: string | null;
  status: string;
  credits_used?: number | null | undefined;
  error?: Generation['error'] | undefined;
  /** A ledger record's key: the reservation is found by it too. */
  idempotency_key?: unknown;
}

/**
 * What the service charged for a generation that ended: a number, null when the answer does not
 * say (the reservation then stays counted as it is: never counted low), or undefined while it has not ended.
 * The final `credits_used` is the authority (spec: the final charge is computed at the end; a
 * refunded failure shows 0; a `CONTENT_POLICY_VIOLATION` failure keeps its charge): a failure
 * without a figure is refunded, unless it is that one.
 */
export function chargeOf(generation: EndedGeneration): number | null | undefined {
  if (generation.status !== 'completed' && generation.status !== 'failed') return undefined;
  const used = generation.credits_used;
  if (typeof used === 'number' && Number.isFinite(used) && used >= 0) return Math.ceil(used);
  const code = typeof generation.error === 'object' && generation.error ? generation.error.code : generation.error;
  return generation.status === 'failed' && code !== CONTENT_POLICY_VIOLATION ? 0 : null;
}

/**
 * Settles the budget of a generation that ended, once however often it is called: for the
 * ledger's `onTerminal` (`onTerminal: (g) => settleBudget(store, g)`), which sees every end,
 * webhook or not, across crashes. A ledger record names its key too: the reservation is found
 * even when the submit's answer never reached the handler (the ledger resent it).
 */
export async function settleBudget(store: BudgetStore, generation: EndedGeneration, now = Date.now()): Promise<boolean> {
  const charged = chargeOf(generation);
  if (charged === undefined || typeof generation.generation_id !== 'string' || !generation.generation_id) return false;
  if (typeof generation.idempotency_key === 'string') await store.bind(generation.idempotency_key, generation.generation_id, now);
  return store.settle(generation.generation_id, charged, now);
}

/** The idempotency key of what a source's `onEvent` answered (the ledger's record), if it names one. */
export function keyOfRecord(recorded: unknown): string | undefined {
  const key = typeof recorded === 'object' && recorded !== null ? (recorded as { idempotency_key?: unknown }).idempotency_key : undefined;
  return typeof key === 'string' && key !== '' ? key : undefined;
}
