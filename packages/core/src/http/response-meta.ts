import { HEADERS } from '../types';

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
  const bodyId = (body as { request_id?: unknown } | null)?.request_id;
  return {
    requestId: headers.get(HEADERS.requestId) ?? (typeof bodyId === 'string' ? bodyId : undefined),
    rateLimitRemaining: parseCount(headers.get(HEADERS.rateLimitRemaining)),
    creditsBalance: parseCount(headers.get(HEADERS.creditsBalance)),
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
 * Attaches the meta to a result without changing its JSON: the fields are not enumerable,
 * so `JSON.stringify(result)` is still exactly the wire body an app may pass on.
 */
export function withMeta<T extends object, M extends object>(data: T, meta: M): T & M {
  for (const key in meta) Object.defineProperty(data, key, { value: meta[key], enumerable: false, configurable: true });
  return data as T & M;
}
