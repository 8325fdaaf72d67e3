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
import { dict, str } from '../params/read';
import type { ErrorBody } from '../types';
import { oneLine } from '../util/one-line';
import { cap } from '../util/redact';
import { REQUEST_ID_HEADER, RETRY_AFTER_HEADER } from './header-names';
import { DEFAULT_WAITS, parseRetryAfter } from './retry-after';

/** Earlier forms of a code that the contract still tolerates, mapped to the current code. */
const LEGACY_CODES = new Map([
  ['INVALID_PARAMS', 'INVALID_BODY'],
  ['UNAUTHORIZED', 'AUTH_MISSING'],
  ['NOT_YOURS', 'NOT_FOUND'],
]);

/** Longest service `message` / `next` / code quoted in an error: the rest is the service's business. */
const DETAIL_MAX = 500;
const CODE_MAX = 100;
/** How much of a non-JSON body (a proxy's HTML page) is looked at to describe it. */
const SNIPPET_SCAN = 2_000;

/** Turns any non-2xx response into the typed error for its status and code. `text` is already bounded. */
export function errorFromResponse(status: number, headers: Headers, text: string): APIError {
  const body = parseErrorBody(text);
  // Every piece of the answer quoted in the error is one inert line (util/one-line): the app
  // prints it, and the answer may come from anyone on the path.
  const rawCode = str(body?.error);
  const code = rawCode ? oneLine(cap(LEGACY_CODES.get(rawCode) ?? rawCode, CODE_MAX)) : `HTTP_${status}`;
  const requestId = oneLine(str(body?.request_id) ?? headers.get(REQUEST_ID_HEADER) ?? undefined);
  const message = str(body?.message);
  const detail = message !== undefined ? cap(message, DETAIL_MAX) : body ? undefined : describeNonJson(headers, text);
  const summary = oneLine(`${status} ${code}${detail ? `: ${detail}` : ''}${requestId ? ` (request_id ${cap(requestId, CODE_MAX)})` : ''}`);
  const next = str(body?.next);
  const init = {
    status,
    code,
    next: oneLine(next && cap(next, DETAIL_MAX)),
    requestId,
    body: body ?? text.slice(0, SNIPPET_SCAN),
    retryable: status === 409 || status === 429 || status >= 500,
    // The service's `Retry-After`, else the contract's wait for the code or the status.
    retryAfterMs: parseRetryAfter(headers.get(RETRY_AFTER_HEADER)) ?? DEFAULT_WAITS[code] ?? DEFAULT_WAITS[status],
  };

  if (status === 404 || code === 'NOT_FOUND') return new NotFoundError(summary, init);
  switch (status) {
    case 401:
      return new AuthenticationError(summary, init);
    case 402:
      return new InsufficientCreditsError(summary, init);
    case 403:
      return new PermissionDeniedError(summary, init);
    case 409:
      return new ConflictError(summary, init);
    case 429:
      return new RateLimitError(summary, init as typeof init & { retryAfterMs: number });
  }
  if (status === 400 || status === 413 || status === 422) return new InvalidRequestError(summary, init);
  if (status >= 500) return new ServerError(summary, init);
  return new APIError(summary, init);
}

/**
 * The service's error object, or undefined for anything else. Linear in the text: one
 * `JSON.parse` (the caller bounds the text), and no regex over it.
 */
export function parseErrorBody(text: string): ErrorBody | undefined {
  if (!text || !/^\s*\{/.test(text.slice(0, 64))) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // Not JSON: a proxy's page, for example. Described by the caller.
  }
  const error = dict(value)?.error;
  if (typeof error === 'string') return value as ErrorBody;
  // An earlier or foreign shape (`{error: {code, message}}`): keep what is recognisable.
  const nested = dict(error);
  if (typeof nested?.code === 'string') {
    return { ...(value as object), error: nested.code, message: str(nested.message) ?? '' } as ErrorBody;
  }
  return undefined;
}

/** A short, readable description of a body that is not the service's (an HTML page, plain text). */
function describeNonJson(headers: Headers, text: string): string {
  const type = cap(headers.get('content-type') ?? 'no content type', CODE_MAX);
  // Only the head is looked at, and tags are dropped by a bounded pattern: linear whatever the body.
  const snippet = oneLine(text.slice(0, SNIPPET_SCAN).replace(/<[^<>]{0,200}>/g, ' '))
    .trim()
    .slice(0, 120);
  return `not a service error body (${type}; a proxy?)${snippet ? `: "${snippet}"` : ''}`;
}
