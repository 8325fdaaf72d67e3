import { type APIError, InsufficientCreditsError, RateLimitError } from '../../errors';
import { ERROR_CODES } from '../../wire/error-codes';
import type { BudgetCaps, BudgetLimitName, BudgetUsage } from './budget-store';

/** The code each limit refuses with (rows of `ERROR_CODES`). */
const CODE_OF = {
  credits: 'USER_BUDGET_EXCEEDED',
  submits: 'USER_RATE_LIMIT',
  in_flight: 'USER_CONCURRENCY_LIMIT',
} as const satisfies Record<BudgetLimitName, keyof typeof ERROR_CODES>;

/** The fields a budget refusal adds to the error body (passed on to the browser: none is a secret). */
export const BUDGET_FIELDS = [
  'credits_per_period',
  'used_credits',
  'remaining_credits',
  'resets_at',
  'submits_per_minute',
  'submits_last_minute',
] as const;

/** What a refusal's body says is left, in the contract's snake_case (the `GET /budget` body's fields). */
export function budgetFields(usage: BudgetUsage, caps: BudgetCaps): Record<string, unknown> {
  return {
    credits_per_period: caps.creditsPerPeriod >= 0 ? caps.creditsPerPeriod : null,
    used_credits: usage.usedCredits,
    remaining_credits: usage.remainingCredits,
    resets_at: usage.resetsAt === null ? null : new Date(usage.resetsAt).toISOString(),
    submits_per_minute: caps.submitsPerMinute >= 0 ? caps.submitsPerMinute : null,
    submits_last_minute: usage.submitsLastMinute,
    in_flight: usage.inFlight,
    max_concurrent: caps.inFlight >= 0 ? caps.inFlight : null,
  };
}

/**
 * The refusal of a submit over the user's budget, shaped as the service's own (`error`,
 * `message`, `next`, and what is left): `402 USER_BUDGET_EXCEEDED` as an
 * `InsufficientCreditsError` (`needed`: the price), `429 USER_RATE_LIMIT` and
 * `429 USER_CONCURRENCY_LIMIT` as a `RateLimitError` with `Retry-After`. Nothing was sent.
 */
export function budgetRefusal(limit: BudgetLimitName, usage: BudgetUsage, caps: BudgetCaps, needed: number, now: number): APIError {
  const code = CODE_OF[limit];
  const { status, retryable } = ERROR_CODES[code];
  const left = budgetFields(usage, caps);
  if (limit === 'credits') {
    const message = `This request costs ${needed} credits; ${usage.remainingCredits} of this period's ${caps.creditsPerPeriod} are left.`;
    const next = usage.remainingCredits
      ? `Pick a request of at most ${usage.remainingCredits} credits, or wait until ${left.resets_at}, when this user's budget resets.`
      : `Wait until ${left.resets_at}, when this user's budget resets.`;
    return new InsufficientCreditsError(message, {
      status,
      code,
      next,
      retryable,
      body: { error: code, message, next, ...left, needed },
    });
  }
  // A slot frees when a generation of the user's ends: no time can be promised, 1 s is a hint (as the service's CONCURRENCY_LIMIT gives).
  const waitMs = limit === 'submits' && usage.minuteFreesAt !== null ? Math.max(1_000, usage.minuteFreesAt - now) : 1_000;
  const message =
    limit === 'submits'
      ? `Over this user's ${caps.submitsPerMinute} submits per minute.`
      : `This user has ${usage.inFlight} generations in flight, the most allowed (${caps.inFlight}).`;
  const next = limit === 'submits' ? `Wait ${Math.ceil(waitMs / 1000)} s (Retry-After), then resend.` : ERROR_CODES[code].next;
  return new RateLimitError(message, {
    status,
    code,
    next,
    retryable,
    retryAfterMs: waitMs,
    body: { error: code, message, next, ...left },
  });
}
