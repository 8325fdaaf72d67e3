import { text } from '../params/read';
import { CREDITS_BALANCE_HEADER, RATE_LIMIT_REMAINING_HEADER, REQUEST_ID_HEADER } from './header-names';

/** What every response says beside its body. */
export interface ResponseMeta {
  /** `X-Request-Id` (equal to the body's `request_id`): quote it to support. */
  readonly requestId: string | undefined;
  /** `X-RateLimit-Remaining`: submits left in this minute, when the service sent it. */
  readonly rateLimitRemaining: number | undefined;
  /** `X-Credits-Balance` ("15,000" is 15000), when the service sent it. */
  readonly creditsBalance: number | undefined;
}

export function readMeta(headers: Headers, body: unknown): ResponseMeta {
  return {
    requestId: headers.get(REQUEST_ID_HEADER) ?? text((body as { request_id?: unknown } | null)?.request_id),
    rateLimitRemaining: parseCount(headers.get(RATE_LIMIT_REMAINING_HEADER)),
    creditsBalance: parseCount(headers.get(CREDITS_BALANCE_HEADER)),
  };
}

/** Integers that may carry thousands separators (`15,000`, `15 000`, `15_000`). */
export function parseCount(value: string | null): number | undefined {
  if (value === null) return undefined;
  const digits = value.replace(/[,\s_']/g, '');
  if (!/^-?\d+$/.test(digits)) return undefined;
  return Number(digits);
}

/**
 * Where a result keeps what its response said beside the body. A symbol, so that no body field
 * (the service may add any: Versioning 5) can collide with it; `Symbol.for`, so the CJS and the
 * ESM build agree on it.
 */
export const RESPONSE: unique symbol = Symbol.for('mediagen.response');

/** A result with its response's metadata: `result[RESPONSE].requestId`. */
export interface WithResponse<M = ResponseMeta> {
  readonly [RESPONSE]: M;
}

/**
 * Attaches the meta to a result without changing a field of it: under a symbol, not
 * enumerable, so `JSON.stringify(result)` is still exactly the wire body an app may pass on.
 */
export function withMeta<T extends object, M extends object>(data: T, meta: M): T & WithResponse<M> {
  return Object.defineProperty(data, RESPONSE, { value: meta }) as T & WithResponse<M>;
}
