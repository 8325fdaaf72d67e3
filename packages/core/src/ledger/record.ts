import type { GenerateParams, Generation, GenerationError, GenerationStatus } from '../types';

/**
 * Where a recorded intent stands. `submitting`: written, maybe sent, no generation id known
 * yet; the other four are the service's states (spec: States and transitions).
 */
export type LedgerStatus = 'submitting' | GenerationStatus;

/**
 * One intent and what became of it: the row a `GenerationStore` keeps. Written before the
 * submit is sent, so a crash at any point leaves a row `reconcile()` can finish.
 */
export interface GenerationRecord {
  /** The `Idempotency-Key` the submit is (re)sent with: the row's identity. */
  key: string;
  /** Whose it is (the app's user or tenant id): reads answer only this owner. */
  owner: string;
  /** The body sent, exactly: a resend with the same key must send the same body (idempotency rule 2). */
  params: GenerateParams;
  status: LedgerStatus;
  /** Null until the service's 202 (or its replay) was recorded. */
  generation_id: string | null;
  /** The latest resource seen (from the 202, a poll, a webhook); its links as last signed. */
  generation: Generation | null;
  /** Why a submit that never became a generation was refused (a permanent 4xx, invalid params). */
  error: GenerationError | null;
  /** The service answered 404 for it (its record is gone): its links are never served again. */
  unavailable: boolean;
  /** The app's `onTerminal` handler ran to its end for the terminal state. */
  notified: boolean;
  /**
   * Its owner stopped it (`ledger.cancel`). Set on an intent the service may have: it goes on,
   * billed, and is still reconciled so its result is kept. An intent stopped before it was sent
   * ends `failed` with code `ABORTED` (nothing charged) and carries the flag too.
   */
  abandoned: boolean;
  /** Copies of the outputs in storage the app owns (`persistOutputs`), once made. */
  outputs: string[] | null;
  /** Milliseconds on the ledger's clock. Lists are ordered by it, newest first. */
  created_at: number;
  updated_at: number;
  /** When the reconciler looks at it next (poll interval, resend backoff). */
  next_check_at: number;
  /** Bumped by every `update`: the compare-and-set token. */
  version: number;
  /** Which ledger instance follows it now, until `lease_until` (ms). */
  lease_holder: string | null;
  lease_until: number;
}

/**
 * The fields an `update` may change; `key`, `owner`, `params`, `created_at` never change. The
 * lease fields let a holder give its lease back in the same write that records what it learned.
 */
export type RecordPatch = Partial<
  Pick<
    GenerationRecord,
    | 'status'
    | 'generation_id'
    | 'generation'
    | 'error'
    | 'unavailable'
    | 'notified'
    | 'abandoned'
    | 'outputs'
    | 'updated_at'
    | 'next_check_at'
    | 'lease_holder'
    | 'lease_until'
  >
>;

const TERMINAL: ReadonlySet<LedgerStatus> = new Set(['completed', 'failed']);

export function isTerminalStatus(status: LedgerStatus): boolean {
  return TERMINAL.has(status);
}

/** An intent as first written: nothing known of it yet. */
export function newRecord(key: string, owner: string, params: GenerateParams, at: number): GenerationRecord {
  return {
    key,
    owner,
    params: structuredClone(params),
    status: 'submitting',
    generation_id: null,
    generation: null,
    error: null,
    unavailable: false,
    notified: false,
    abandoned: false,
    outputs: null,
    created_at: at,
    updated_at: at,
    next_check_at: at,
    version: 0,
    lease_holder: null,
    lease_until: 0,
  };
}
