import {
  BUDGET_MINUTE_MS,
  type BudgetCaps,
  type BudgetReserveInput,
  type BudgetStore,
  type BudgetUsage,
  type BudgetVerdict,
  periodStart,
  refusedBy,
  usageOf,
} from './budget-store';

export interface BudgetStoreTimes {
  /**
   * How long a reservation holds its in-flight slot if it is never settled (its instance died,
   * its end was never seen). Its credits stay counted. Default 1 h (the longest render is minutes).
   */
  inFlightTtlMs?: number;
  /** How long a key is remembered, so a replay of it counts nothing twice. Default 24 h (the service's own idempotency window). */
  keyTtlMs?: number;
}

export const DEFAULT_IN_FLIGHT_TTL_MS = 3_600_000;
export const DEFAULT_KEY_TTL_MS = 24 * 3_600_000;

interface UserState {
  period: number;
  used: number;
  /** key -> when its submit was counted. */
  hits: Map<string, number>;
  /** key -> when its slot lapses. */
  flights: Map<string, number>;
}

interface Reservation {
  owner: string;
  period: number;
  credits: number;
  extra: number;
  settled: boolean;
  at: number;
  generationId?: string;
}

/**
 * `BudgetStore` in this process's memory: right for one instance (and tests). Several
 * instances share `RedisBudgetStore` (`@mediagen/redis`) or `PostgresBudgetStore` (`@mediagen/postgres`).
 */
export class MemoryBudgetStore implements BudgetStore {
  readonly #users = new Map<string, UserState>();
  readonly #reservations = new Map<string, Reservation>();
  readonly #byGeneration = new Map<string, string>();
  /** Ends seen before their bind (the webhook outran the 202): generation id -> charge and when. */
  readonly #ended = new Map<string, { credits: number | null; at: number }>();
  readonly #inFlightTtlMs: number;
  readonly #keyTtlMs: number;

  constructor(options: BudgetStoreTimes = {}) {
    this.#inFlightTtlMs = options.inFlightTtlMs ?? DEFAULT_IN_FLIGHT_TTL_MS;
    this.#keyTtlMs = options.keyTtlMs ?? DEFAULT_KEY_TTL_MS;
  }

  async reserve({ owner, key, credits, extraCredits, caps, now }: BudgetReserveInput): Promise<BudgetVerdict> {
    this.#forgetOld(now);
    const user = this.#user(owner, caps, now);
    if (this.#reservations.has(key)) return { ok: true, replay: true, usage: this.#usage(user, caps, now) };
    const total = credits + extraCredits;
    const limit = refusedBy(this.#counts(user), caps, total);
    if (limit) return { ok: false, limit, usage: this.#usage(user, caps, now) };
    user.hits.set(key, now);
    user.flights.set(key, now + this.#inFlightTtlMs);
    user.used += total;
    this.#reservations.set(key, { owner, period: user.period, credits, extra: extraCredits, settled: false, at: now });
    return { ok: true, replay: false, usage: this.#usage(user, caps, now) };
  }

  async bind(key: string, generationId: string, now: number): Promise<void> {
    const reservation = this.#reservations.get(key);
    if (!reservation) return;
    reservation.generationId = generationId;
    this.#byGeneration.set(generationId, key);
    const ended = this.#ended.get(generationId);
    if (ended) {
      this.#ended.delete(generationId);
      await this.settle(generationId, ended.credits, now);
    }
  }

  async release(key: string, _now?: number): Promise<void> {
    const reservation = this.#reservations.get(key);
    if (!reservation || reservation.settled || reservation.generationId !== undefined) return;
    const user = this.#users.get(reservation.owner);
    if (user) {
      if (user.period === reservation.period) user.used -= reservation.credits + reservation.extra;
      user.flights.delete(key);
    }
    this.#reservations.delete(key);
  }

  async settle(generationId: string, credits: number | null, now: number): Promise<boolean> {
    const key = this.#byGeneration.get(generationId);
    const reservation = key === undefined ? undefined : this.#reservations.get(key);
    if (key === undefined || !reservation) {
      // Not bound yet (or never reserved): the first end is kept, so a bind that comes later settles at once.
      if (!this.#ended.has(generationId)) this.#ended.set(generationId, { credits, at: now });
      return false;
    }
    if (reservation.settled) return false;
    reservation.settled = true;
    const user = this.#users.get(reservation.owner);
    if (user) {
      if (user.period === reservation.period && credits !== null) user.used += credits - reservation.credits;
      user.flights.delete(key);
    }
    return true;
  }

  async usage(owner: string, caps: BudgetCaps, now: number): Promise<BudgetUsage> {
    return this.#usage(this.#user(owner, caps, now), caps, now);
  }

  /** The user's state at `now`: a new period starts at 0, lapsed slots and old submits are dropped. */
  #user(owner: string, caps: BudgetCaps, now: number): UserState {
    let user = this.#users.get(owner);
    if (!user) this.#users.set(owner, (user = { period: periodStart(now, caps.periodMs), used: 0, hits: new Map(), flights: new Map() }));
    const period = periodStart(now, caps.periodMs);
    if (period > user.period) Object.assign(user, { period, used: 0 });
    for (const [key, at] of user.hits) if (at <= now - BUDGET_MINUTE_MS) user.hits.delete(key);
    for (const [key, lapses] of user.flights) if (lapses <= now) user.flights.delete(key);
    return user;
  }

  #counts(user: UserState) {
    let oldest: number | null = null;
    for (const at of user.hits.values()) oldest = oldest === null ? at : Math.min(oldest, at);
    return { usedCredits: user.used, inFlight: user.flights.size, submitsLastMinute: user.hits.size, oldestSubmit: oldest };
  }

  #usage(user: UserState, caps: BudgetCaps, now: number): BudgetUsage {
    return usageOf(this.#counts(user), caps, now);
  }

  /** Keys older than their TTL are forgotten (oldest first: the map keeps insertion order), so memory stays bounded. */
  #forgetOld(now: number): void {
    for (const [id, ended] of this.#ended) {
      if (ended.at > now - this.#keyTtlMs) break;
      this.#ended.delete(id);
    }
    for (const [key, reservation] of this.#reservations) {
      if (reservation.at > now - this.#keyTtlMs) break;
      this.#reservations.delete(key);
      if (reservation.generationId !== undefined) this.#byGeneration.delete(reservation.generationId);
    }
  }
}
