/**
 * Where the account gate keeps its counts. Behind an interface so a shared store (Redis: a
 * Lua script over a sorted set of submit times and a set of in-flight ids) can serve several
 * processes of one account; each method must be atomic in such a store.
 */

export interface GateLimits {
  /** Submits per minute (`rate_limit.per_minute`). */
  perMinute: number;
  /** Generations in flight at once (`rate_limit.max_concurrent`). */
  maxConcurrent: number;
}

/** A submit slot (`token`), or how long to wait before asking again. */
export type GateGrant = { token: string } | { waitMs: number };

export interface GateStore {
  /** Takes one submit in the rate window and one in-flight slot, or says how long to wait. */
  acquire(limits: GateLimits): GateGrant | Promise<GateGrant>;
  /** The submit was accepted: the slot now belongs to the generation. */
  bind(token: string, generationId: string): void | Promise<void>;
  /** The submit failed: the slot is given back (the rate hit stays, the service counted it). */
  release(token: string): void | Promise<void>;
  /** The generation is terminal: its slot is free. */
  settle(generationId: string): void | Promise<void>;
}

export interface MemoryGateStoreOptions {
  /**
   * The rate window. Default 61 s: a minute plus a second, so a request that reached the
   * service late is never counted with one sent a full minute after it.
   */
  windowMs?: number;
  /** After this long a slot whose end was never seen is freed anyway. Default 30 minutes. */
  inFlightTtlMs?: number;
  /** How often a full gate asks again (slots freed in this process wake it at once). Default 250 ms. */
  pollMs?: number;
  now?: () => number;
}

/** The gate's counts for one process. */
export class MemoryGateStore implements GateStore {
  readonly #hits: number[] = [];
  readonly #inFlight = new Map<string, number>();
  readonly #window: number;
  readonly #ttl: number;
  readonly #poll: number;
  readonly #now: () => number;
  #seq = 0;

  constructor(options: MemoryGateStoreOptions = {}) {
    this.#window = options.windowMs ?? 61_000;
    this.#ttl = options.inFlightTtlMs ?? 30 * 60_000;
    this.#poll = options.pollMs ?? 250;
    this.#now = options.now ?? Date.now;
  }

  /** Generations (and submits) currently in flight. */
  get inFlight(): number {
    this.#expire(this.#now());
    return this.#inFlight.size;
  }

  acquire(limits: GateLimits): GateGrant {
    const now = this.#now();
    this.#expire(now);
    if (this.#hits.length >= limits.perMinute) return { waitMs: Math.max(1, this.#hits[0]! + this.#window - now) };
    if (this.#inFlight.size >= limits.maxConcurrent) return { waitMs: this.#poll };
    const token = `submit-${++this.#seq}`;
    this.#hits.push(now);
    this.#inFlight.set(token, now + this.#ttl);
    return { token };
  }

  bind(token: string, generationId: string): void {
    if (this.#inFlight.delete(token)) this.#inFlight.set(generationId, this.#now() + this.#ttl);
  }

  release(token: string): void {
    this.#inFlight.delete(token);
  }

  settle(generationId: string): void {
    this.#inFlight.delete(generationId);
  }

  #expire(now: number): void {
    while (this.#hits.length > 0 && this.#hits[0]! <= now - this.#window) this.#hits.shift();
    for (const [key, until] of this.#inFlight) if (until <= now) this.#inFlight.delete(key);
  }
}
