import { BODY_TIMEOUT, BODY_TOO_LARGE, decodeJsonText, isJsonContentType, readBody } from '../util/body';
import { MAX_NESTING, nestsDeeperThan } from '../util/nesting';
import { routeError } from './route-error';

/**
 * The body as a JSON object, or the refusal that says why it is not one. Only
 * `application/json` is read: a page on another site can post a form, `text/plain` or
 * multipart to this origin without a CORS preflight (and with the user's cookie), never JSON,
 * so refusing the rest unread keeps such a page from spending the user's credits. 422
 * `INVALID_BODY` is the contract's answer for a body it cannot parse (spec: Codes).
 */
export async function readJsonObject(request: Request, maxBytes: number, timeoutMs: number): Promise<Record<string, unknown>> {
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw routeError('INVALID_BODY', 'Send the body as application/json.', { details: { field: 'Content-Type' } });
  }
  let value: unknown;
  try {
    value = JSON.parse(decodeJsonText(await readBody(request, maxBytes, Date.now() + timeoutMs)));
  } catch (error) {
    if (error === BODY_TOO_LARGE) throw routeError('INVALID_BODY', `The body is larger than ${maxBytes} bytes.`, {}, 413);
    if (error === BODY_TIMEOUT) throw routeError('REQUEST_TIMEOUT', 'The body did not arrive in time.');
    throw routeError('INVALID_BODY', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw routeError('INVALID_BODY', 'The body must be a JSON object.');
  // Before any hook, validator or copy walks it recursively (as the service's parser bounds it).
  if (nestsDeeperThan(value)) throw routeError('INVALID_BODY', `The body nests deeper than ${MAX_NESTING} levels.`);
  return value as Record<string, unknown>;
}
