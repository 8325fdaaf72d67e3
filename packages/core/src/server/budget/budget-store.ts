/**
 * A user's limits as a store applies them: every field a whole number, `-1` for "no limit".
 * (`budgetLimitsOf` makes them from the app's `BudgetLimits`.)
 */
export interface BudgetCaps {
  /** Credits the user may have reserved or charged in one period. */
  creditsPerPeriod: number;
  /** Length of a period in ms; periods are aligned to the Unix epoch (so every instance agrees on them). */
  periodMs: number;
  /** Submits in any sliding minute. */
  submitsPerMinute: number;
  /** Generations reserved and not yet settled. */
  inFlight: number;
}

/** One reservation asked of the store, before the submit is sent. */
export interface BudgetReserveInput {
  owner: string;
  /**
   * Names the intent (the owner-scoped idempotency key the service sees): a replay of the same
   * key finds its reservation and counts nothing again, whether it is still open or settled.
   */
  key: string;
  /** The exact price (`estimate: true`'s `credits_estimate`): reserved, then settled to `credits_used`. */
  credits: number;
  /** Credits charged beside `credits_used` that settling keeps (the flat `enhance` pass). */
  extraCredits: number;
  caps: BudgetCaps;
  /** Milliseconds since the epoch, the caller's clock: the period and the minute are counted on it. */
  now: number;
}

/** Where a user stands, at `now`. */
export interface BudgetUsage {
  /** Credits reserved or charged in the current period. */
  usedCredits: number;
  /** `creditsPerPeriod − usedCredits` (never below 0), or null with no credit limit. */
  remainingCredits: number | null;
  /** When the current period ends (ms), or null with no credit limit. */
  resetsAt: number | null;
  /** Reservations not settled (nor lapsed). */
  inFlight: number;
  /** Submits counted in the last 60 s. */
  submitsLastMinute: number;
  /** When the oldest of those leaves the minute (ms), or null when there is none. */
  minuteFreesAt: number | null;
}

/** Which limit refused. */
export type BudgetLimitName = 'credits' | 'submits' | 'in_flight';

export type BudgetVerdict =
  | { ok: true /** The key was reserved before: nothing was counted again. */; replay: boolean; usage: BudgetUsage }
  | { ok: false; limit: BudgetLimitName; usage: BudgetUsage };

/**
 * Per-user budgets, shared by every instance of an app: each method is atomic across every
 * process using the same store (one Lua script on Redis, one transaction holding the user's
 * row lock on PostgreSQL). Credits are counted per user and period: a reservation adds its
 * price, `settle` replaces it by the final charge, `release` takes it back. A store never
 * throws for a refusal; it throws (a `MediaGenError`) when it cannot answer.
 */
export interface BudgetStore {
  /**
   * Checks the three limits and, if all allow it, counts the submit, its credits and its slot,
   * in one atomic step: no two instances can both take the last credit or slot.
   */
  reserve(input: BudgetReserveInput): Promise<BudgetVerdict>;
  /**
   * The submit was answered: the reservation of `key` now also answers to `generationId` (for
   * `settle`). If the generation's end was settled before this (its webhook outran the 202), it
   * is settled now: the two are atomic with each other, whichever comes first.
   */
  bind(key: string, generationId: string, now: number): Promise<void>;
  /**
   * The submit was refused for good (nothing billed): its credits and slot are given back (its
   * submit stays counted in the minute) and the key is forgotten, so a resend is a new reservation.
   * A bound (its submit was answered), settled or unknown key is left as it is.
   */
  release(key: string, now: number): Promise<void>;
  /**
   * The generation ended and the service charged `credits` for it (`credits_used`; 0 for a
   * refunded failure; null when unknown, which keeps the reservation's amount): its reservation
   * becomes that charge (plus its `extraCredits`), in the period it was reserved in, and its slot is freed. Once per generation: true the first time,
   * false after (or for an id no reservation was bound to).
   */
  settle(generationId: string, credits: number | null, now: number): Promise<boolean>;
  /** Where `owner` stands now. */
  usage(owner: string, caps: BudgetCaps, now: number): Promise<BudgetUsage>;
}

/** The submit window of `submitsPerMinute`. */
export const BUDGET_MINUTE_MS = 60_000;

/** The start of the period `now` falls in. */
export function periodStart(now: number, periodMs: number): number {
  return Math.floor(now / periodMs) * periodMs;
}

/** The usage figures a store computes from its counts, the same arithmetic for every store. */
export function usageOf(
  counts: { usedCredits: number; inFlight: number; submitsLastMinute: number; oldestSubmit: number | null },
  caps: BudgetCaps,
  now: number,
): BudgetUsage {
  const limited = caps.creditsPerPeriod >= 0;
  return {
    usedCredits: counts.usedCredits,
    remainingCredits: limited ? Math.max(0, caps.creditsPerPeriod - counts.usedCredits) : null,
    resetsAt: limited ? periodStart(now, caps.periodMs) + caps.periodMs : null,
    inFlight: counts.inFlight,
    submitsLastMinute: counts.submitsLastMinute,
    minuteFreesAt: counts.oldestSubmit === null ? null : counts.oldestSubmit + BUDGET_MINUTE_MS,
  };
}

/** The limit a reservation of `credits` would pass, checked in the order the stores check them. */
export function refusedBy(
  counts: { usedCredits: number; inFlight: number; submitsLastMinute: number },
  caps: BudgetCaps,
  credits: number,
): BudgetLimitName | undefined {
  if (caps.submitsPerMinute >= 0 && counts.submitsLastMinute >= caps.submitsPerMinute) return 'submits';
  if (caps.inFlight >= 0 && counts.inFlight >= caps.inFlight) return 'in_flight';
  if (caps.creditsPerPeriod >= 0 && counts.usedCredits + credits > caps.creditsPerPeriod) return 'credits';
  return undefined;
}
