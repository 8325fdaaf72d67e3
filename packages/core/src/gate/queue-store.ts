import type { RequestOptions } from '../http/transport';
import type { GateGrant, GateLimit, GateLimits, GateStore } from './store';

export interface QueueGateStoreOptions {
  /** How often a submit behind the first in line asks again (a slot freed in this process wakes it at once). Default 250 ms. */
  pollMs?: number;
  /** A submit that stopped asking (it gave up, its process is busy) leaves the line this long after its next ask was due. Default 1 s. */
  lapseMs?: number;
  now?: () => number;
}

/**
 * A gate store that serves this process's submits first come, first served over another store
 * (`new MemoryGateStore()`, not made here: the root entry's chunk stays as it is), and tells each waiting submit's `onQueue` where it stands: its
 * position, the limit that holds the line, and the earliest it can go when that is known. Only
 * the first in line asks the store under it; the others wait their turn. Across processes,
 * `RedisGateStore` keeps one line for all of them instead.
 *
 * ```ts
 * new MediaGenClient({ gate: new Gate({ store: queueGateStore(new MemoryGateStore()) }) })
 * ```
 */
export function queueGateStore(store: GateStore, options: QueueGateStoreOptions = {}): GateStore {
  return new QueueGateStore(store, options);
}

class QueueGateStore implements GateStore {
  readonly #store: GateStore;
  /** The waiting submits in the order they came, each with when it lapses unless it asks again. */
  readonly #line = new Map<RequestOptions, number>();
  /** What held the first in line at its last ask: what the others are told holds them. */
  #held: GateLimit | undefined;
  readonly #poll: number;
  readonly #lapse: number;
  readonly #now: () => number;

  constructor(store: GateStore, options: QueueGateStoreOptions) {
    this.#store = store;
    this.#poll = options.pollMs ?? 250;
    this.#lapse = options.lapseMs ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  async acquire(limits: GateLimits, submit?: RequestOptions): Promise<GateGrant> {
    // A caller that names no submit is not queued (nothing could tell it apart from another).
    if (!submit) return this.#store.acquire(limits);
    const now = this.#now();
    // An aborted submit, or one that stopped asking, leaves the line.
    for (const [waiting, lapsesAt] of this.#line) if (lapsesAt < now || waiting.signal?.aborted) this.#line.delete(waiting);
    if (!this.#line.has(submit)) this.#line.set(submit, Number.POSITIVE_INFINITY);
    const position = [...this.#line.keys()].indexOf(submit) + 1;
    let grant: GateGrant;
    if (position === 1) {
      try {
        grant = await this.#store.acquire(limits, submit);
      } catch (error) {
        this.#line.delete(submit);
        throw error;
      }
      if ('token' in grant) {
        this.#line.delete(submit);
        return grant;
      }
      this.#held = grant.limit;
    } else {
      grant = { waitMs: this.#poll, limit: this.#held };
    }
    this.#line.set(submit, now + grant.waitMs + this.#lapse);
    const known = position === 1 && grant.limit !== undefined && grant.limit !== 'max_concurrent';
    // A throw here fails the submit before it is sent (nothing is charged): it leaves the line.
    try {
      submit.onQueue?.({ position, limit: grant.limit, ...(known ? { notBefore: now + grant.waitMs } : {}) });
    } catch (error) {
      this.#line.delete(submit);
      throw error;
    }
    return grant;
  }

  bind(token: string, generationId: string): void | Promise<void> {
    return this.#store.bind(token, generationId);
  }

  release(token: string): void | Promise<void> {
    return this.#store.release(token);
  }

  settle(generationId: string): void | Promise<void> {
    return this.#store.settle(generationId);
  }

  hit(at: number): void | Promise<void> {
    return this.#store.hit?.(at);
  }

  hold(token: string, holdMs: number): void | Promise<void> {
    return this.#store.hold?.(token, holdMs);
  }

  pause(untilMs: number): void | Promise<void> {
    return this.#store.pause?.(untilMs);
  }
}
