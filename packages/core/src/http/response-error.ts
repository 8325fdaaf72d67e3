import {
  APIError,
  AuthenticationError,
  ConflictError,
  InsufficientCreditsError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
} from '../errors';
import { HEADERS, type ErrorBody } from '../types';

/** Earlier forms of a code that the contract still tolerates, mapped to the current code. */
const LEGACY_CODES: Record<string, string> = {
  INVALID_PARAMS: 'INVALID_BODY',
  UNAUTHORIZED: 'AUTH_MISSING',
  NOT_YOURS: 'NOT_FOUND',
};

/** The spec's default waits when the service sends no `Retry-After`. */
const DEFAULT_RETRY_AFTER_MS: Record<number, number> = { 409: 3_000, 429: 5_000 };

/** Turns any non-2xx response into the typed error for its status and code. */
export function errorFromResponse(status: number, headers: Headers, text: string): APIError {
  const body = parseErrorBody(text);
  const rawCode = body?.error;
  const code = rawCode ? (LEGACY_CODES[rawCode] ?? rawCode) : `HTTP_${status}`;
  const requestId = body?.request_id ?? headers.get(HEADERS.requestId) ?? undefined;
  const detail = body?.message ?? (body ? undefined : describeNonJson(status, headers, text));
  const message = `${status} ${code}${detail ? `: ${detail}` : ''}${requestId ? ` (request_id ${requestId})` : ''}`;
  const init = {
    status,
    code,
    next: body?.next,
    requestId,
    body: body ?? text.slice(0, 2_000),
    retryable: status === 409 || status === 429 || status >= 500,
  };

  if (status === 404 || code === 'NOT_FOUND') return new NotFoundError(message, init);
  switch (status) {
    case 401:
      return new AuthenticationError(message, init);
    case 402:
      return new InsufficientCreditsError(message, init);
    case 403:
      return new PermissionDeniedError(message, init);
    case 409:
      return new ConflictError(message, init);
    case 429:
      return new RateLimitError(message, {
        ...init,
        retryAfterMs: parseRetryAfter(headers.get(HEADERS.retryAfter)) ?? DEFAULT_RETRY_AFTER_MS[429]!,
      });
  }
  if (status === 400 || status === 413 || status === 422) return new InvalidRequestError(message, init);
  if (status >= 500) return new ServerError(message, init);
  return new APIError(message, init);
}

/** How long to wait before resending after this error, when the service or the spec says. */
export function serverRequestedDelay(error: APIError, headers: Headers): number | undefined {
  const header = parseRetryAfter(headers.get(HEADERS.retryAfter));
  if (header !== undefined) return header;
  if (error.code === 'PROVIDER_DOWN') return 60_000;
  return error.status === undefined ? undefined : DEFAULT_RETRY_AFTER_MS[error.status];
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1_000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function parseErrorBody(text: string): ErrorBody | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && typeof (value as ErrorBody).error === 'string') {
      return value as ErrorBody;
    }
    // An earlier or foreign shape (`{error: {code, message}}`): keep what is recognisable.
    const nested = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (nested && typeof nested.code === 'string') {
      return { ...(value as object), error: nested.code, message: String(nested.message ?? '') } as ErrorBody;
    }
  } catch {
    // Not JSON: a proxy's HTML page, for example. Described by the caller.
  }
  return undefined;
}

function describeNonJson(status: number, headers: Headers, text: string): string {
  const type = headers.get('content-type') ?? 'no content type';
  const snippet = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
  return `the response was not a service error body (${type})${snippet ? `: "${snippet}"` : ''}; probably a proxy or gateway in front of the service`;
}
