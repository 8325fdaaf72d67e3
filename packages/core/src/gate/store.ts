/**
 * Where the account gate keeps its counts. Behind an interface so a shared store (Redis: a
 * Lua script over a sorted set of submit times and a set of in-flight ids) can serve several
 * processes of one account; each method must be atomic in such a store.
 */

import type { RequestOptions } from '../http/transport';

export interface GateLimits {
  /** Submits per minute (`rate_limit.per_minute`). */
  perMinute: number;
  /** Generations in flight at once (`rate_limit.max_concurrent`). */
  maxConcurrent: number;
}

/**
 * What holds a waiting submit: the per-minute rate, the `max_concurrent` slots, or the
 * `Retry-After` of a 429 met by a process on the account.
 */
export type GateLimit = 'per_minute' | 'max_concurrent' | 'retry_after';

/**
 * Where a submit waiting for a gate slot stands, as a store that queues tells the submit's
 * `onQueue` (`RequestOptions`) at each wait.
 */
export interface GateWait {
  /** Its place in line, 1 first, among every submit waiting on the store (every process, on Redis). */
  position: number;
  /** What holds the line (the first in it), when the store says. */
  limit?: GateLimit;
  /**
   * The earliest it can go (epoch ms), when known: its turn in the rate window, or the end of a
   * 429's `Retry-After`. Absent while `max_concurrent` holds it (a slot frees when a generation ends).
   */
  notBefore?: number;
}

/** A submit slot (`token`), or how long to wait before asking again (and, when the store says, why). */
export type GateGrant = { token: string } | { waitMs: number; limit?: GateLimit };

export interface GateStore {
  /**
   * Takes one submit in the rate window and one in-flight slot, or says how long to wait.
   * `submit` is the waiting submit's options, the same object at each of its asks: a store may
   * serve submits first come, first served and tell each one's `onQueue` where it stands
   * (`queueGateStore` in `@mediagen/core/server`, `RedisGateStore`). A submit that stops asking
   * (aborted, or past `maxWaitMs`) must lapse from such a queue by itself.
   */
  acquire(limits: GateLimits, submit?: RequestOptions): GateGrant | Promise<GateGrant>;
  /** The submit was accepted: the slot now belongs to the generation. */
  bind(token: string, generationId: string): void | Promise<void>;
  /** The submit failed: the slot is given back (the rate hit stays, the service counted it). */
  release(token: string): void | Promise<void>;
  /** The generation is terminal: its slot is free. */
  settle(generationId: string): void | Promise<void>;
  /**
   * One more rate hit at `at` (epoch ms, possibly a moment ahead) with no slot of its own: a
   * transport resend of a submit, which the service counts as a request like any other.
   */
  hit?(at: number): void | Promise<void>;
  /**
   * The submit's answer was lost (every attempt a connection failure, timeout or 5xx): the
   * service may hold the generation, so its slot is kept for `holdMs` instead of given back.
   */
  hold?(token: string, holdMs: number): void | Promise<void>;
  /**
   * The service answered 429: no new submit from any process sharing the store until `untilMs`
   * (epoch ms). Optional: without it the pause stays in the process that met the 429.
   */
  pause?(untilMs: number): void | Promise<void>;
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
  #pausedUntil = 0;
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
    if (this.#pausedUntil > now) return { waitMs: this.#pausedUntil - now, limit: 'retry_after' };
    // An empty window never holds a submit, whatever the service's per-minute limit says (a 0,
    // "" or NaN would hold every one, for a wait computed from no hit: NaN, a busy loop).
    if (this.#hits.length && this.#hits.length >= limits.perMinute)
      return { waitMs: Math.max(1, this.#hits[0]! + this.#window - now), limit: 'per_minute' };
    if (this.#inFlight.size >= limits.maxConcurrent) return { waitMs: this.#poll, limit: 'max_concurrent' };
    const token = `submit-${++this.#seq}`;
    this.hit(now);
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

  hit(at: number = this.#now()): void {
    // Kept in time order: a resend is counted when it will go, which may be after later hits.
    let i = this.#hits.length;
    while (i > 0 && this.#hits[i - 1]! > at) i--;
    this.#hits.splice(i, 0, at);
  }

  hold(token: string, holdMs: number): void {
    if (this.#inFlight.has(token)) this.#inFlight.set(token, this.#now() + holdMs);
  }

  pause(untilMs: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, untilMs);
  }

  #expire(now: number): void {
    while (this.#hits.length > 0 && this.#hits[0]! <= now - this.#window) this.#hits.shift();
    for (const [key, until] of this.#inFlight) if (until <= now) this.#inFlight.delete(key);
  }
}
