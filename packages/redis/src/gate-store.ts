import { randomUUID } from 'node:crypto';
import type { GateGrant, GateLimit, GateLimits, GateStore, RequestOptions } from '@mediagen/core';
import { type Connection, closeConnection, connect, type RedisStoreOptions, withinTime } from './connection';
import { ACQUIRE, BIND, HIT, HOLD, IN_FLIGHT, PAUSE } from './gate-scripts';

export interface RedisGateStoreOptions extends RedisStoreOptions {
  /** The rate window. Default 61 s (a minute and a second, like the in-memory gate). */
  windowMs?: number;
  /**
   * How long a slot lives unless settled: the longest a generation can be in flight. A crashed
   * process's slots lapse after this. Default 15 minutes.
   */
  inFlightTtlMs?: number;
  /** How often a full gate asks again (slots freed in other processes wake nobody here). Default 250 ms. */
  pollMs?: number;
  /**
   * A waiting submit that stopped asking (its process died, it gave up) leaves the shared line this
   * long after its next ask was due, so the submits behind it move up. Default 1 s.
   */
  lapseMs?: number;
  /**
   * When Redis cannot be reached: `false` (default) fails closed, `acquire` throws
   * `RedisStoreError` and nothing is sent; `true` fails open, submits go ungated and the
   * service's own 429s (fed back into the gate of the process that meets them) limit them.
   */
  failOpen?: boolean;
}

/**
 * `GateStore` on Redis: one account's per-minute rate and `max_concurrent` shared by every
 * process using its API key (give each account its own `prefix`). Every method is one Lua
 * script, so the counts are atomic across processes. Submits wait in one line across those
 * processes, first come first served, and each waiting submit's `onQueue` is told its position,
 * what holds the line and, when known, the earliest it can go.
 */
export class RedisGateStore implements GateStore {
  readonly #connection: Connection;
  readonly #keys: string[];
  readonly #lapseMs: number;
  /** Each waiting submit's id in the line (the gate asks with the same options object each time). */
  readonly #ids = new WeakMap<RequestOptions, string>();
  /** This process's waiters, with when each last asked: an aborted one leaves the line at the next ask. */
  readonly #waiting = new Map<string, { submit: RequestOptions; askedAt: number }>();
  readonly #timeoutMs: number;
  readonly #windowMs: number;
  readonly #ttlMs: number;
  readonly #pollMs: number;
  readonly #failOpen: boolean;

  constructor(options: RedisGateStoreOptions) {
    this.#connection = connect(options.redis);
    const prefix = options.prefix ?? 'mediagen:gate:';
    this.#keys = ['hits', 'slots', 'pause', 'line', 'lapse', 'seq', 'held'].map((name) => `${prefix}${name}`);
    this.#timeoutMs = options.operationTimeoutMs ?? 2_000;
    this.#windowMs = options.windowMs ?? 61_000;
    this.#ttlMs = options.inFlightTtlMs ?? 15 * 60_000;
    this.#pollMs = options.pollMs ?? 250;
    this.#failOpen = options.failOpen ?? false;
    this.#lapseMs = options.lapseMs ?? 1_000;
  }

  async acquire(limits: GateLimits, submit?: RequestOptions): Promise<GateGrant> {
    const token = `submit:${randomUUID()}`;
    const [, slots] = this.#keys as [string, string];
    const client = this.#connection.client;
    const waiter = submit ? this.#waiter(submit) : '';
    const acquiring = ACQUIRE.run(client, this.#keys, [
      limit(limits.perMinute),
      limit(limits.maxConcurrent),
      this.#windowMs,
      this.#ttlMs,
      token,
      this.#pollMs,
      waiter,
      this.#lapseMs,
      ...this.#leaving(),
    ]) as Promise<[number, number, number?, number?]>;
    let reply: [number, number, number?, number?];
    try {
      reply = await this.#run(acquiring, 'a gate acquire');
    } catch (error) {
      // Given up on, the acquire may still land and take a slot that nothing binds or releases:
      // with a small max_concurrent, a few slow replies would block every submit for the whole
      // in-flight TTL. The slot is freed as soon as it lands (its rate hit stays: it is counted).
      void acquiring.then((late) => (Number(late?.[0]) === 1 ? client.zrem(slots, token) : undefined)).catch(() => {});
      this.#waiting.delete(waiter);
      if (this.#failOpen) return { token };
      throw error;
    }
    if (reply[0] === 1) {
      this.#waiting.delete(waiter);
      return { token };
    }
    const waitMs = Math.max(1, Number(reply[1]));
    const position = Number(reply[2] ?? 1);
    const held = HELD_BY[Number(reply[3] ?? 0)];
    if (submit?.onQueue) {
      const known = position === 1 && held !== undefined && held !== 'max_concurrent';
      try {
        submit.onQueue({ position, limit: held, ...(known ? { notBefore: Date.now() + waitMs } : {}) });
      } catch (error) {
        // Fails the submit before it is sent: it leaves the line at the next ask of this store.
        this.#waiting.set(waiter, { submit: { signal: AbortSignal.abort() }, askedAt: Date.now() });
        throw error;
      }
    }
    return held ? { waitMs, limit: held } : { waitMs };
  }

  #waiter(submit: RequestOptions): string {
    let id = this.#ids.get(submit);
    if (id === undefined) {
      id = `waiter:${randomUUID()}`;
      this.#ids.set(submit, id);
    }
    this.#waiting.set(id, { submit, askedAt: Date.now() });
    return id;
  }

  /** This process's waiters that were aborted: told to leave the line now. Others long silent are forgotten (Redis lapses them). */
  #leaving(): string[] {
    const leaving: string[] = [];
    const forgetBefore = Date.now() - 60 * this.#lapseMs;
    for (const [id, { submit, askedAt }] of this.#waiting) {
      if (submit.signal?.aborted) leaving.push(id);
      if (submit.signal?.aborted || askedAt < forgetBefore) this.#waiting.delete(id);
    }
    return leaving;
  }

  async bind(token: string, generationId: string): Promise<void> {
    await this.#quiet(BIND.run(this.#connection.client, [this.#keys[1] as string], [token, generationId, this.#ttlMs]), 'a gate bind');
  }

  async release(token: string): Promise<void> {
    await this.#quiet(this.#connection.client.zrem(this.#keys[1] as string, token), 'a gate release');
  }

  async settle(generationId: string): Promise<void> {
    await this.#quiet(this.#connection.client.zrem(this.#keys[1] as string, generationId), 'a gate settle');
  }

  async hit(at: number): Promise<void> {
    const delay = Math.max(0, Math.round(at - Date.now()));
    await this.#quiet(
      HIT.run(this.#connection.client, [this.#keys[0] as string], [`resend:${randomUUID()}`, delay, this.#windowMs]),
      'a gate hit',
    );
  }

  async hold(token: string, holdMs: number): Promise<void> {
    await this.#quiet(
      HOLD.run(this.#connection.client, [this.#keys[1] as string], [token, Math.max(1, Math.round(holdMs))]),
      'a gate hold',
    );
  }

  async pause(untilMs: number): Promise<void> {
    const ms = Math.round(untilMs - Date.now());
    if (ms <= 0) return;
    await this.#quiet(PAUSE.run(this.#connection.client, [this.#keys[2] as string], [ms]), 'a gate pause');
  }

  /** Slots held now across every process (submits and generations in flight). */
  async inFlight(): Promise<number> {
    return Number(await this.#run(IN_FLIGHT.run(this.#connection.client, [this.#keys[1] as string], []), 'a gate count'));
  }

  /** Closes the connection if the store opened it (from a URL). */
  async close(): Promise<void> {
    await closeConnection(this.#connection);
  }

  #run<T>(promise: Promise<T>, what: string): Promise<T> {
    return withinTime(promise, this.#timeoutMs, what);
  }

  /** Bookkeeping after the submit: failing open swallows an outage here too (the slot lapses by TTL). */
  async #quiet(promise: Promise<unknown>, what: string): Promise<void> {
    try {
      await this.#run(promise, what);
    } catch (error) {
      if (!this.#failOpen) throw error;
    }
  }
}

/** What holds the line, as the acquire script numbers it. */
const HELD_BY: (GateLimit | undefined)[] = [undefined, 'retry_after', 'per_minute', 'max_concurrent'];

function limit(value: number): number {
  return Number.isFinite(value) && value >= 0 ? Math.floor(value) : -1;
}
