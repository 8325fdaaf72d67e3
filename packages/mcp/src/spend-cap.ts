import { ConfigurationError } from '@mediagen/core';
import { SpendCapExceededError } from './errors';

export interface SpendReport {
  /** The cap in credits, or null when the session has none. */
  cap: number | null;
  /** Credits committed by this session's generates (exact estimates; refusals given back). */
  committed: number;
  /** What the cap still allows, or null without a cap. */
  remaining: number | null;
}

/**
 * One session's spend cap. `hold` checks and commits in one synchronous step, so parallel tool
 * calls in this process (each an async task on one thread) can never both pass a check that
 * only one of them fits: no await sits between the check and the commit. Holds are keyed by
 * the generate's idempotency key, so a repeated call (which the ledger answers with the same
 * generation) is counted once.
 */
export class SpendCap {
  readonly #cap: number | undefined;
  readonly #held = new Map<string, number>();
  #committed = 0;

  constructor(cap: number | undefined) {
    if (cap !== undefined && !(Number.isFinite(cap) && cap >= 0)) throw new ConfigurationError('spendCapCredits must be a number >= 0.');
    this.#cap = cap;
  }

  /** Commits `credits` under `key`, or throws `SpendCapExceededError` leaving everything as it was. */
  hold(key: string, credits: number): void {
    if (this.#held.has(key)) return;
    if (this.#cap !== undefined && this.#committed + credits > this.#cap) {
      throw new SpendCapExceededError(credits, this.#cap - this.#committed, this.#cap);
    }
    this.#held.set(key, credits);
    this.#committed += credits;
  }

  /** Gives a hold back: its submit was refused for good (nothing billed). */
  release(key: string): void {
    const credits = this.#held.get(key);
    if (credits === undefined) return;
    this.#held.delete(key);
    this.#committed -= credits;
  }

  report(): SpendReport {
    return {
      cap: this.#cap ?? null,
      committed: this.#committed,
      remaining: this.#cap === undefined ? null : Math.max(0, this.#cap - this.#committed),
    };
  }
}
