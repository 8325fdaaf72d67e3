import type { BudgetCaps, BudgetReserveInput, BudgetStore, BudgetStoreTimes, BudgetUsage, BudgetVerdict } from '@mediagen/core/server';
import { DEFAULT_IN_FLIGHT_TTL_MS, DEFAULT_KEY_TTL_MS, usageOf } from '@mediagen/core/server';
import { BIND, RELEASE, RESERVE, SETTLE, USAGE } from './budget-scripts';
import { type Connection, closeConnection, connect, type RedisStoreOptions, withinTime } from './connection';

export interface RedisBudgetStoreOptions extends RedisStoreOptions, BudgetStoreTimes {}

const REFUSED = { [-1]: 'submits', [-2]: 'in_flight', [-3]: 'credits' } as const;

/**
 * `BudgetStore` on Redis: per-user budgets shared by every instance of the app. Each operation
 * is one Lua script (check and count in one step), so no two instances can both take a user's
 * last credit or slot. Fails closed: when Redis cannot answer, `reserve` throws
 * `RedisStoreError` and nothing is sent.
 */
export class RedisBudgetStore implements BudgetStore {
  readonly #connection: Connection;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #flightTtlMs: number;
  readonly #keyTtlMs: number;

  constructor(options: RedisBudgetStoreOptions) {
    this.#connection = connect(options.redis);
    this.#prefix = options.prefix ?? 'mediagen:budget:';
    this.#timeoutMs = options.operationTimeoutMs ?? 2_000;
    this.#flightTtlMs = options.inFlightTtlMs ?? DEFAULT_IN_FLIGHT_TTL_MS;
    this.#keyTtlMs = options.keyTtlMs ?? DEFAULT_KEY_TTL_MS;
  }

  async reserve({ owner, key, credits, extraCredits, caps, now }: BudgetReserveInput): Promise<BudgetVerdict> {
    const reply = (await this.#run(
      RESERVE.run(
        this.#connection.client,
        [...this.#userKeys(owner), this.#record(key)],
        [
          key,
          whole(credits),
          whole(extraCredits),
          caps.creditsPerPeriod,
          caps.periodMs,
          caps.submitsPerMinute,
          caps.inFlight,
          now,
          this.#flightTtlMs,
          this.#keyTtlMs,
        ],
      ),
      'a budget reserve',
    )) as number[];
    const usage = usageFrom(reply, caps, now);
    const verdict = Number(reply[0]);
    if (verdict > 0) return { ok: true, replay: verdict === 2, usage };
    return { ok: false, limit: REFUSED[verdict as -1 | -2 | -3], usage };
  }

  async bind(key: string, generationId: string): Promise<void> {
    await this.#run(
      BIND.run(this.#connection.client, [this.#record(key), ...this.#generationKeys(generationId)], [key, this.#keyTtlMs]),
      'a budget bind',
    );
  }

  async release(key: string): Promise<void> {
    await this.#run(RELEASE.run(this.#connection.client, [this.#record(key)], [key]), 'a budget release');
  }

  async settle(generationId: string, credits: number | null): Promise<boolean> {
    const charged = credits === null ? '' : whole(credits);
    const reply = await this.#run(
      SETTLE.run(this.#connection.client, this.#generationKeys(generationId), [charged, `${this.#prefix}r:`, this.#keyTtlMs]),
      'a budget settle',
    );
    return Number(reply) === 1;
  }

  async usage(owner: string, caps: BudgetCaps, now: number): Promise<BudgetUsage> {
    const reply = (await this.#run(
      USAGE.run(this.#connection.client, this.#userKeys(owner), [now, caps.periodMs]),
      'a budget read',
    )) as number[];
    return usageFrom(reply, caps, now);
  }

  /** Closes the connection if the store opened it (from a URL). */
  async close(): Promise<void> {
    await closeConnection(this.#connection);
  }

  #userKeys(owner: string): [string, string, string] {
    return [`${this.#prefix}u:${owner}`, `${this.#prefix}h:${owner}`, `${this.#prefix}f:${owner}`];
  }

  /** The generation's alias (its key) and its end seen before the bind. */
  #generationKeys(generationId: string): [string, string] {
    return [`${this.#prefix}g:${generationId}`, `${this.#prefix}e:${generationId}`];
  }

  #record(key: string): string {
    return `${this.#prefix}r:${key}`;
  }

  #run<T>(promise: Promise<T>, what: string): Promise<T> {
    return withinTime(promise, this.#timeoutMs, what);
  }
}

function usageFrom(reply: number[], caps: BudgetCaps, now: number): BudgetUsage {
  const oldest = Number(reply[4]);
  return usageOf(
    {
      usedCredits: Number(reply[1]),
      inFlight: Number(reply[2]),
      submitsLastMinute: Number(reply[3]),
      oldestSubmit: oldest >= 0 ? oldest : null,
    },
    caps,
    now,
  );
}

/** A whole, non-negative number of credits (the service's are integers; anything else would corrupt the counts). */
function whole(credits: number): number {
  return Number.isFinite(credits) && credits > 0 ? Math.ceil(credits) : 0;
}
