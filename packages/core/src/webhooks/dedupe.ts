/**
 * De-duplication of webhook deliveries (spec: Receiver rule 7, on `generation_id`). The
 * interface is shaped so a shared store (Redis: `SET key NX PX`) can implement it: a claim is
 * atomic, a failed handler releases its claim so the service's retry runs it again, and only
 * success marks the event as seen.
 */

export type DedupeClaim = 'claimed' | 'seen' | 'in_progress';

export interface WebhookDedupeStore {
  /**
   * Atomically: `claimed` when the key is new (it is now in progress for `leaseMs`, after which
   * a crashed holder's claim lapses), `in_progress` while another holder runs it, `seen` once
   * completed.
   */
  claim(key: string, leaseMs: number): DedupeClaim | Promise<DedupeClaim>;
  /** The handler succeeded: remember the key as seen for `ttlMs`. */
  complete(key: string, ttlMs: number): void | Promise<void>;
  /** The handler failed: forget the claim, so the next delivery runs it again. */
  release(key: string): void | Promise<void>;
}

export interface MemoryDedupeStoreOptions {
  /** Most keys kept; the least recently used go first. Default 10 000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry {
  state: 'in_progress' | 'seen';
  expiresAt: number;
}

/** A bounded in-memory LRU with TTL: right for one process; use a shared store for several. */
export class MemoryDedupeStore implements WebhookDedupeStore {
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    this.#max = Math.max(1, options.maxEntries ?? 10_000);
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  claim(key: string, leaseMs: number): DedupeClaim {
    const now = this.#now();
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt > now) {
      // Map order is recency order: re-inserting marks the key as recently used.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry.state;
    }
    this.#set(key, { state: 'in_progress', expiresAt: now + leaseMs });
    return 'claimed';
  }

  complete(key: string, ttlMs: number): void {
    this.#set(key, { state: 'seen', expiresAt: this.#now() + ttlMs });
  }

  release(key: string): void {
    this.#entries.delete(key);
  }

  #set(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#max) break;
      this.#entries.delete(oldest);
    }
  }
}
