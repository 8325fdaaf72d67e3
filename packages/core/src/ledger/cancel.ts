import type { GenerationError } from '../types';
import type { GenerationRecord } from './record';
import type { LedgerGeneration } from './view';

/**
 * What `ledger.cancel` did. The contract has no cancel: a generation the service has runs to its
 * end and is billed. So there are only two ways to stop, and the answer says which one happened.
 *
 * - `stopped`: the intent was never sent (its first send was still before the send point: the
 *   model check, the gate's wait). It ends `failed` with code `ABORTED`; nothing was charged.
 * - `abandoned`: the service has the request, or may have it (it was sent, or it is `submitting`
 *   after a crash or a lost answer). It goes on and is billed; the ledger keeps following it
 *   (resends it with its key, polls it, keeps its result) and marks it `abandoned` for the owner.
 *   A cancel from another instance than the one sending it answers so too (it cannot know how far
 *   that send got); should the sender see the mark before its send point, the intent then ends
 *   as `stopped` would, and the record says so.
 * - `finished`: it was already `completed` or `failed`: nothing to stop.
 */
export type CancelOutcome = 'stopped' | 'abandoned' | 'finished';

export interface LedgerCancel {
  outcome: CancelOutcome;
  /** False only when `outcome` is `stopped`: an abandoned generation counts as billed. */
  charged: boolean;
  /** The record after the cancel. */
  generation: LedgerGeneration;
}

/** The error a stopped intent keeps (`ABORTED`, the core error code of an abort). */
export const STOPPED_UNSENT: GenerationError = {
  code: 'ABORTED',
  message: 'Stopped before it was sent: nothing was charged.',
  retryable: false,
};

/** An intent that ended because its owner stopped it before its only send went out. */
export function wasStopped(record: GenerationRecord): boolean {
  return record.status === 'failed' && record.generation_id === null && record.abandoned && record.error?.code === STOPPED_UNSENT.code;
}

interface Sending {
  controller: AbortController;
  done: Promise<unknown>;
}

/**
 * The intents whose first send runs in this process, each with the controller that stops it
 * before its send point (`generations.create` honours its signal up to there and not after). Only
 * a first send can be stopped for sure: a resend's earlier attempt may have reached the service.
 */
export class FirstSends {
  readonly #sending = new Map<string, Sending>();

  /**
   * Runs `send` as the first send of `key`, with a signal that the caller's `signal` and `stop`
   * both abort. Registered before `send` starts, so no cancel comes between the write and it.
   */
  run<T>(key: string, signal: AbortSignal | undefined, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const follow = () => controller.abort(signal?.reason);
    if (signal?.aborted) follow();
    else signal?.addEventListener('abort', follow, { once: true });
    const done = Promise.resolve().then(() => send(controller.signal));
    const entry: Sending = { controller, done };
    this.#sending.set(key, entry);
    const forget = () => {
      signal?.removeEventListener('abort', follow);
      if (this.#sending.get(key) === entry) this.#sending.delete(key);
    };
    done.then(forget, forget);
    return done;
  }

  /** Whether this process sends `key` for the first time right now. */
  has(key: string): boolean {
    return this.#sending.has(key);
  }

  /**
   * Stops `key`'s first send if it has not gone out, and waits until that send has settled: then
   * the record says which way it went (stopped, or sent and answered). False when none runs here.
   */
  async stop(key: string): Promise<boolean> {
    const entry = this.#sending.get(key);
    if (!entry) return false;
    entry.controller.abort();
    await entry.done.catch(() => {});
    return true;
  }
}
