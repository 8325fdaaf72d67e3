import { MediaGenError, RateLimitError } from '../errors';
import { RETRY_AFTER_MAX_MS } from '../http/retry-after';
import type { RequestOptions } from '../http/transport';
import type { RateLimitInfo } from '../types';
import { sleep } from '../util/sleep';
import { answerMayBeLost } from './answer-lost';
import { type GateStore, MemoryGateStore } from './store';

export interface GateOptions {
  /** Where slots and rate hits are counted: a `RedisGateStore` to share them across processes. Default: in memory. */
  store?: GateStore;
  /**
   * How long a submit whose answer was lost keeps its slot (the service may be running it),
   * unless a resend with the same idempotency key learns its generation first. Default 3 min,
   * the longest typical render.
   */
  lostAnswerHoldMs?: number;
  /**
   * Longest a submit waits for a slot before failing with `GATE_TIMEOUT` (whose message names
   * what it waited for and how slots free). Default 2 min.
   */
  maxWaitMs?: number;
}

/** Held slots remembered per idempotency key; past this the oldest just lapse in the store. */
const MAX_HELD = 1_000;

/**
 * The client-side account gate: keeps submits under the account's per-minute rate and its
 * `max_concurrent` in-flight generations, so a large batch never meets a 429 in normal use.
 * A generation is in flight from submit until the client sees it terminal (`get`, `wait`,
 * `run`) or the app says so (`settle`, e.g. from a webhook).
 *
 * Opt-in, so apps that do not gate do not ship it: `new MediaGenClient({ gate: new Gate() })`
 * (or `new Gate({ store: new RedisGateStore(...) })`); one gate serves one client.
 */
export class Gate {
  readonly #store: GateStore;
  #limits: () => Promise<RateLimitInfo | undefined> = async () => undefined;
  #latest: RateLimitInfo | undefined;
  readonly #wakers = new Set<() => void>();
  readonly #holdMs: number;
  /** Slots kept for submits whose answer was lost, by idempotency key: a resend reuses its slot. */
  readonly #held = new Map<string, { token: string; until: number }>();
  /** A 429 met here: no submit before this (epoch ms), whatever the store says. */
  #pausedUntil = 0;
  readonly #maxWaitMs: number;

  constructor(options: GateOptions = {}) {
    this.#store = options.store ?? new MemoryGateStore();
    this.#holdMs = options.lostAnswerHoldMs ?? 3 * 60_000;
    this.#maxWaitMs = options.maxWaitMs ?? 2 * 60_000;
  }

  /** @internal The client this gate is passed to says where the account's limits are read. */
  connect(limits: () => Promise<RateLimitInfo | undefined>): void {
    this.#limits = limits;
  }

  /** The limits in use, as last read from the models or credits response. */
  get limits(): RateLimitInfo | undefined {
    return this.#latest;
  }

  /** Marks a generation terminal (for example on its webhook), freeing its slot. */
  async settle(generationId: string): Promise<void> {
    await this.#store.settle(generationId);
    this.#wake();
  }

  /** @internal Records the limits a response carried. */
  observe(rateLimit: RateLimitInfo | undefined): void {
    if (rateLimit && typeof rateLimit === 'object') this.#latest = rateLimit;
  }

  /**
   * @internal Waits for a submit slot; undefined when no limits are known. The submit's options
   * go to the store with each ask (`GateStore.acquire`): a store that queues tells `onQueue`.
   * A resend under the idempotency key of a submit whose answer was lost takes back that
   * submit's slot (the service counts one generation for both) and only a rate hit.
   */
  async acquire(options: RequestOptions = {}): Promise<string | undefined> {
    const { signal, idempotencyKey } = options;
    const store = this.#store;
    const held = idempotencyKey === undefined ? undefined : this.#held.get(idempotencyKey);
    if (held !== undefined) this.#held.delete(idempotencyKey!);
    // Past its hold the slot has lapsed in the store: take a fresh one.
    if (held && held.until > Date.now()) {
      await store.hit?.(Date.now());
      return held.token;
    }
    const giveUpAt = Date.now() + this.#maxWaitMs;
    for (;;) {
      const limits = (this.#latest ??= await this.#limits());
      if (!limits) return undefined;
      const paused = this.#pausedUntil - Date.now();
      const grant =
        paused > 0
          ? { waitMs: paused }
          : await store.acquire(
              {
                perMinute: limits.per_minute ?? Infinity,
                maxConcurrent: limits.max_concurrent ?? Infinity,
              },
              options,
            );
      if ('token' in grant) return grant.token;
      // Why a submit found no slot in time. The usual cause: `max_concurrent` generations were
      // submitted with `create()` and nothing told the gate they finished.
      if (Date.now() + grant.waitMs > giveUpAt) {
        throw new MediaGenError(`No submit slot in ${this.#maxWaitMs} ms (max_concurrent ${limits.max_concurrent}).`, {
          code: 'GATE_TIMEOUT',
          retryable: true,
          next: 'A slot frees when generations.wait(id) or run() sees it end, or on gate.settle(id).',
        });
      }
      // One controller ends the wait early, for the caller's abort or a slot freed here;
      // either way the timer is cleared, so a finished batch leaves nothing pending.
      const wait = new AbortController();
      const stop = () => wait.abort();
      signal?.addEventListener('abort', stop, { once: true });
      this.#wakers.add(stop);
      try {
        await sleep(grant.waitMs, signal?.aborted ? signal : wait.signal);
      } catch (error) {
        if (signal?.aborted) throw error;
      } finally {
        this.#wakers.delete(stop);
        signal?.removeEventListener('abort', stop);
      }
    }
  }

  /** @internal The submit was accepted. */
  async bind(token: string | undefined, generationId: string): Promise<void> {
    // The submit succeeded: a store failure here must not turn it into an error (the slot lapses by its TTL).
    try {
      if (token !== undefined) await this.#store.bind(token, generationId);
    } catch {}
  }

  /**
   * @internal The submit failed with `error`. A refusal gives the slot back; a lost answer
   * keeps it (bounded, see `lostAnswerHoldMs`); a 429 pauses the gate for its `Retry-After`.
   */
  async release(token: string | undefined, error?: unknown, idempotencyKey?: string): Promise<void> {
    // Never throws: the submit's own error is what the caller must see (a slot not freed lapses by its TTL).
    try {
      await this.#feedBack(error);
      if (token === undefined) return;
      const store = this.#store;
      if (store?.hold && answerMayBeLost(error)) {
        await store.hold(token, this.#holdMs);
        if (idempotencyKey !== undefined) this.#remember(idempotencyKey, token);
        return;
      }
      await store.release(token);
      this.#wake();
    } catch {
      // Swallowed, as said above.
    }
  }

  /**
   * @internal The transport is about to resend a submit after `error`: the resend is one more
   * request in the service's rate window, and a 429 says the account is fuller than we knew.
   */
  async retried(error: unknown, delayMs = 0): Promise<void> {
    await this.#feedBack(error);
    await this.#store.hit?.(Date.now() + delayMs);
  }

  /** A 429 met by this process (another process on the account, or stale limits): pause every submit. */
  async #feedBack(error: unknown): Promise<void> {
    if (!(error instanceof RateLimitError)) return;
    // No longer than the SDK itself would wait: a submit after it meets the 429 again if it must.
    const until = Date.now() + Math.min(error.retryAfterMs, RETRY_AFTER_MAX_MS);
    this.#pausedUntil = Math.max(this.#pausedUntil, until);
    await this.#store.pause?.(until);
  }

  #remember(idempotencyKey: string, token: string): void {
    this.#held.set(idempotencyKey, { token, until: Date.now() + this.#holdMs });
    for (const oldest of this.#held.keys()) {
      if (this.#held.size <= MAX_HELD) break;
      this.#held.delete(oldest);
    }
  }

  #wake(): void {
    for (const wake of this.#wakers) wake();
  }
}
