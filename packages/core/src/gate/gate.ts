import type { RateLimitInfo } from '../types';
import { sleep } from '../util/sleep';
import type { GateStore } from './store';

/**
 * The client-side account gate: keeps submits under the account's per-minute rate and its
 * `max_concurrent` in-flight generations, so a large batch never meets a 429 in normal use.
 * A generation is in flight from submit until the client sees it terminal (`get`, `wait`,
 * `run`) or the app says so (`settle`, e.g. from a webhook).
 */
export class Gate {
  readonly #store: GateStore | undefined;
  readonly #limits: () => Promise<RateLimitInfo | undefined>;
  #latest: RateLimitInfo | undefined;
  readonly #wakers = new Set<() => void>();

  constructor(store: GateStore | undefined, limits: () => Promise<RateLimitInfo | undefined>) {
    this.#store = store;
    this.#limits = limits;
  }

  /** Whether this client gates its submits (`gate` client option). */
  get enabled(): boolean {
    return this.#store !== undefined;
  }

  /** The limits in use, as last read from the models or credits response. */
  get limits(): RateLimitInfo | undefined {
    return this.#latest;
  }

  /** Marks a generation terminal (for example on its webhook), freeing its slot. */
  async settle(generationId: string): Promise<void> {
    await this.#store?.settle(generationId);
    this.#wake();
  }

  /** @internal Records the limits a response carried. */
  observe(rateLimit: RateLimitInfo | undefined): void {
    if (rateLimit && typeof rateLimit === 'object') this.#latest = rateLimit;
  }

  /** @internal Waits for a submit slot; undefined when the gate is off or no limits are known. */
  async acquire(signal?: AbortSignal): Promise<string | undefined> {
    const store = this.#store;
    if (!store) return undefined;
    for (;;) {
      this.#latest ??= await this.#limits();
      const limits = this.#latest;
      if (!limits) return undefined;
      const grant = await store.acquire({
        perMinute: limits.per_minute ?? Infinity,
        maxConcurrent: limits.max_concurrent ?? Infinity,
      });
      if ('token' in grant) return grant.token;
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
    if (token !== undefined) await this.#store?.bind(token, generationId);
  }

  /** @internal The submit failed. */
  async release(token: string | undefined): Promise<void> {
    if (token === undefined) return;
    await this.#store?.release(token);
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#wakers) wake();
  }
}
