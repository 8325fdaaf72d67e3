import { APIError, InvalidRequestError, NotFoundError, PermissionDeniedError } from '../errors';
import { ERROR_CODES, type ErrorCode, NO_SUCH_ROUTE_NEXT } from '../wire/error-codes';

/**
 * A refusal of the app's routes as the SDK error a service answer of the same code would be
 * (`NotFoundError` for 404, `InvalidRequestError` for 422…): status and `next` from the code
 * table, extra body fields (`details.field`, `model`) passed on to the browser by `errorReply`.
 */
export function routeError(code: ErrorCode, message: string, body: Record<string, unknown> = {}, status?: number): APIError {
  return withNext(code, message, ERROR_CODES[code].next, body, status);
}

function withNext(code: ErrorCode, message: string, next: string, body: Record<string, unknown> = {}, status?: number): APIError {
  const info = ERROR_CODES[code];
  const init = { status: status ?? info.status, code, next, retryable: info.retryable, body: { error: code, message, ...body } };
  if (init.status === 404) return new NotFoundError(message, init);
  if (init.status === 403) return new PermissionDeniedError(message, init);
  if (init.status === 400 || init.status === 413 || init.status === 422) return new InvalidRequestError(message, init);
  return new APIError(message, init);
}

/** The one answer for a generation the asker may not see, whatever the reason (spec: 404, indistinguishable). */
export const notFound = (): APIError => routeError('NOT_FOUND', 'No such generation.');

/** 404 for a route this handler does not have, or was not configured to serve: its hint names routes, not ids. */
export const noSuchRoute = (message = 'No such route.'): APIError => withNext('NOT_FOUND', message, NO_SUCH_ROUTE_NEXT);
