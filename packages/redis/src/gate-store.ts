import { randomUUID } from 'node:crypto';
import type { GateGrant, GateLimits, GateStore } from '@mediagen/core';
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
   * When Redis cannot be reached: `false` (default) fails closed, `acquire` throws
   * `RedisStoreError` and nothing is sent; `true` fails open, submits go ungated and the
   * service's own 429s (fed back into the gate of the process that meets them) limit them.
   */
  failOpen?: boolean;
}

/**
 * `GateStore` on Redis: one account's per-minute rate and `max_concurrent` shared by every
 * process using its API key (give each account its own `prefix`). Every method is one Lua
 * script, so the counts are atomic across processes.
 */
export class RedisGateStore implements GateStore {
  readonly #connection: Connection;
  readonly #keys: { hits: string; slots: string; pause: string };
  readonly #timeoutMs: number;
  readonly #windowMs: number;
  readonly #ttlMs: number;
  readonly #pollMs: number;
  readonly #failOpen: boolean;

  constructor(options: RedisGateStoreOptions) {
    this.#connection = connect(options.redis);
    const prefix = options.prefix ?? 'mediagen:gate:';
    this.#keys = { hits: `${prefix}hits`, slots: `${prefix}slots`, pause: `${prefix}pause` };
    this.#timeoutMs = options.operationTimeoutMs ?? 2_000;
    this.#windowMs = options.windowMs ?? 61_000;
    this.#ttlMs = options.inFlightTtlMs ?? 15 * 60_000;
    this.#pollMs = options.pollMs ?? 250;
    this.#failOpen = options.failOpen ?? false;
  }

  async acquire(limits: GateLimits): Promise<GateGrant> {
    const token = `submit:${randomUUID()}`;
    const { hits, slots, pause } = this.#keys;
    const client = this.#connection.client;
    const acquiring = ACQUIRE.run(
      client,
      [hits, slots, pause],
      [limit(limits.perMinute), limit(limits.maxConcurrent), this.#windowMs, this.#ttlMs, token, this.#pollMs],
    ) as Promise<[number, number]>;
    let reply: [number, number];
    try {
      reply = await this.#run(acquiring, 'a gate acquire');
    } catch (error) {
      // Given up on, the acquire may still land and take a slot that nothing binds or releases:
      // with a small max_concurrent, a few slow replies would block every submit for the whole
      // in-flight TTL. The slot is freed as soon as it lands (its rate hit stays: it is counted).
      void acquiring.then((late) => (Number(late?.[0]) === 1 ? client.zrem(slots, token) : undefined)).catch(() => {});
      if (this.#failOpen) return { token };
      throw error;
    }
    return reply[0] === 1 ? { token } : { waitMs: Math.max(1, Number(reply[1])) };
  }

  async bind(token: string, generationId: string): Promise<void> {
    await this.#quiet(BIND.run(this.#connection.client, [this.#keys.slots], [token, generationId, this.#ttlMs]), 'a gate bind');
  }

  async release(token: string): Promise<void> {
    await this.#quiet(this.#connection.client.zrem(this.#keys.slots, token), 'a gate release');
  }

  async settle(generationId: string): Promise<void> {
    await this.#quiet(this.#connection.client.zrem(this.#keys.slots, generationId), 'a gate settle');
  }

  async hit(at: number): Promise<void> {
    const delay = Math.max(0, Math.round(at - Date.now()));
    await this.#quiet(HIT.run(this.#connection.client, [this.#keys.hits], [`resend:${randomUUID()}`, delay, this.#windowMs]), 'a gate hit');
  }

  async hold(token: string, holdMs: number): Promise<void> {
    await this.#quiet(HOLD.run(this.#connection.client, [this.#keys.slots], [token, Math.max(1, Math.round(holdMs))]), 'a gate hold');
  }

  async pause(untilMs: number): Promise<void> {
    const ms = Math.round(untilMs - Date.now());
    if (ms <= 0) return;
    await this.#quiet(PAUSE.run(this.#connection.client, [this.#keys.pause], [ms]), 'a gate pause');
  }

  /** Slots held now across every process (submits and generations in flight). */
  async inFlight(): Promise<number> {
    return Number(await this.#run(IN_FLIGHT.run(this.#connection.client, [this.#keys.slots], []), 'a gate count'));
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

function limit(value: number): number {
  return Number.isFinite(value) && value >= 0 ? Math.floor(value) : -1;
}
