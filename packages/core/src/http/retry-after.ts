/**
 * The longest wait the SDK sleeps before resending by itself. A longer one (a `Retry-After` of
 * an hour, a date ahead) is not shortened to a default and resent early: the call fails with the
 * error, whose `retryAfterMs` holds the whole wait, and the caller decides when to come back.
 */
export const RETRY_AFTER_MAX_MS = 600_000; // 10 minutes

/**
 * The contract's waits when the service names none: the client retry guidance (409: 3 s, 429:
 * 5 s), `503 PROVIDER_DOWN` ("retry after 60 s") and `503 SAFETY_CHECK_UNAVAILABLE` ("retry in a
 * few minutes": 2, the least that reading allows; resending it after the 1 s backoff only meets
 * the same outage, and nothing was charged).
 */
export const DEFAULT_WAITS: Readonly<Record<string, number>> = {
  409: 3_000,
  429: 5_000,
  PROVIDER_DOWN: 60_000,
  SAFETY_CHECK_UNAVAILABLE: 120_000,
};

/**
 * `Retry-After` in ms: delta-seconds (`3`, `1.5`) or an HTTP date. Undefined when absent,
 * unreadable, negative, infinite or a date already past.
 */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value.trim() || undefined); // blank: NaN (Number('') is 0)
  // Not a number: an HTTP date (a negative number parses as a date long past, and is dropped).
  const ms = seconds >= 0 ? seconds * 1_000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) && ms >= 0 ? Math.ceil(ms) : undefined;
}
