import { isMediaGenError, type MediaGenError } from '../errors';
import { oneLine } from '../util/one-line';
import { errorCodeInfo } from '../wire/error-codes';
import { BUDGET_FIELDS } from './budget/budget-refusal';

export interface ErrorReply {
  status: number;
  /** The spec's error body: `error`, `message`, `next`, `request_id`, plus the code's own fields. */
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Fields of a service error body that are safe to pass on to a browser (none carries a secret). */
const PASSED_ON = [
  'model',
  'details',
  'field',
  'reason',
  'balance',
  'needed',
  'in_flight',
  'max_concurrent',
  'until',
  'category',
  ...BUDGET_FIELDS,
];

/** Codes whose message is about the app's server, not the request: never sent to a browser. */
const MASKED = new Set(['UNEXPECTED', 'CONFIGURATION_ERROR']);

/**
 * The service's answers about the app's own key or account, not the browser's user: passed on
 * as they came, a 401 would read as "your session ended" to the app's page, and the operator,
 * who alone can act, would never hear of it (only 5xx are reported). The key's faults and a
 * locked tier are the app's configuration (500); an account the service holds back is the app
 * unable to serve for now (503).
 */
const APP_KEY = new Set(['AUTH_MISSING', 'UNAUTHORIZED', 'KEY_INVALID', 'KEY_REVOKED', 'TIER_LOCKED']);
const APP_ACCOUNT = new Set(['API_DISABLED', 'ACCOUNT_BANNED', 'ACCOUNT_FROZEN', 'ACCOUNT_RESTRICTED']);

/**
 * The HTTP answer an app's own API gives for an error the SDK threw: the service's status and
 * error body for API errors, a matching one for client-side errors, and a bare 500 for anything
 * else, whose message is not shown (it may hold internals).
 */
export function errorReply(error: unknown): ErrorReply {
  if (!isMediaGenError(error)) {
    return {
      status: 500,
      headers: {},
      body: { error: 'INTERNAL_ERROR', message: 'Internal error.', next: 'Retry later.', request_id: null },
    };
  }
  // The service's answer about the app's key or account: the app's fault, with its own status.
  const appStatus = error.status === undefined ? undefined : APP_KEY.has(error.code) ? 500 : APP_ACCOUNT.has(error.code) ? 503 : undefined;
  // An SDK error that never reached the service has no status of its own: the code table's.
  const given = appStatus ?? error.status ?? errorCodeInfo(error.code)?.status ?? 500;
  // A refusal is always an error status: an upstream answer that was itself not one (a 2xx whose
  // body is unusable, a 3xx) failed as a gateway's does, never a 202 carrying an error body.
  const status = given >= 400 && given <= 599 ? given : 502;
  // The app's own faults (its config, its key or account, a wrapped non-SDK failure such as a
  // store's) stay on the server: their messages can name internals. The code still says what
  // kind of failure it was.
  const internal = appStatus !== undefined || MASKED.has(error.code);
  const wire = error.body;
  // A service answer's own words, not the SDK's summary of it (`422 UNKNOWN_MODEL: … (request_id …)`):
  // the status, code and request id are the reply's own fields, as on every other refusal.
  const said = error.status === undefined ? undefined : (wire as { message?: unknown } | null)?.message;
  const body: Record<string, unknown> = {
    error: error.code,
    message: internal ? 'Internal error.' : typeof said === 'string' && said ? oneLine(said.slice(0, 500)) : error.message,
    // Every error body has a `next`: the code table's when the error carries none (a connection failure, a timeout).
    next: internal ? 'Retry later; the server log has the details.' : (error.next ?? errorCodeInfo(error.code)?.next ?? 'Retry later.'),
    request_id: error.requestId ?? null,
  };
  if (!internal && typeof wire === 'object' && wire !== null) {
    for (const key of PASSED_ON) if (key in wire) body[key] = (wire as Record<string, unknown>)[key];
  }
  const issues = (error as MediaGenError & { issues?: { field: string }[] }).issues;
  if (Array.isArray(issues)) {
    body.issues = issues;
    if (issues[0]) body.details = { field: issues[0].field };
  }
  const headers: Record<string, string> = {};
  if (error.requestId) headers['x-request-id'] = error.requestId;
  const retryAfterMs = (error as MediaGenError & { retryAfterMs?: number }).retryAfterMs;
  if (typeof retryAfterMs === 'number') headers['retry-after'] = String(Math.ceil(retryAfterMs / 1000));
  else if (status === 409) headers['retry-after'] = '3';
  return { status, body, headers };
}

/** `errorReply(error)` as a Web `Response`. */
export function errorResponse(error: unknown): Response {
  const { status, body, headers } = errorReply(error);
  return Response.json(body, { status, headers });
}
