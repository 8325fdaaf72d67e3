import type { APIError } from '../errors';
import { HEADERS } from '../types';

/** The spec's waits when the service names none (client retry guidance; 503 PROVIDER_DOWN: 60 s). */
export const DEFAULT_RETRY_AFTER_MS: Readonly<Record<number, number>> = { 409: 3_000, 429: 5_000 };
const PROVIDER_DOWN_MS = 60_000;

/**
 * The longest wait a `Retry-After` may ask for. Past it the value is taken as garbage (a
 * `3000000` meant as ms, a date years ahead) and the spec's default applies instead; the
 * spec's own longest advice is "a few minutes".
 */
export const RETRY_AFTER_MAX_MS = 10 * 60_000;

/**
 * `Retry-After` in ms: delta-seconds (`3`, `1.5`) or an HTTP date. Undefined when absent,
 * unreadable, negative, a date already past, or beyond `RETRY_AFTER_MAX_MS`: the caller then
 * uses the spec's default for the status.
 */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value.trim() || Number.NaN);
  // Not a number: an HTTP date (a negative number parses as a date long past, and is dropped).
  const ms = seconds >= 0 ? seconds * 1_000 : Date.parse(value) - Date.now();
  return ms >= 0 && ms <= RETRY_AFTER_MAX_MS ? Math.ceil(ms) : undefined;
}

/** How long to wait before resending after this error, when the service or the spec says. */
export function serverRequestedDelay(error: APIError, headers: Headers): number | undefined {
  return parseRetryAfter(headers.get(HEADERS.retryAfter)) ?? defaultDelay(error);
}

function defaultDelay(error: APIError): number | undefined {
  if (error.code === 'PROVIDER_DOWN') return PROVIDER_DOWN_MS;
  return error.status === undefined ? undefined : DEFAULT_RETRY_AFTER_MS[error.status];
}
