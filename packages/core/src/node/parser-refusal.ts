import { errorResponse } from '../server/error-reply';
import { routeError } from '../server/route-error';
import { type WebhookRefusalCode, webhookRefusal } from '../webhooks/refusals';

/**
 * Why the platform's body parser refused a request before any route ran:
 * - `unparsable`: the bytes arrived (and were kept as `req.rawBody`) but are not JSON the parser takes;
 * - `too-large`: over the parser's own limit (Express's 100 kB, Fastify's `bodyLimit`);
 * - `media-type`: a content type, charset or encoding no parser takes;
 * - `unreadable`: the body broke off or did not match its `Content-Length`.
 */
export type ParserRefusal = 'unparsable' | 'too-large' | 'media-type' | 'unreadable';

/** body-parser's error `type`s (Express), by what they mean. */
const BODY_PARSER: Record<string, ParserRefusal> = {
  'entity.parse.failed': 'unparsable',
  'entity.too.large': 'too-large',
  'charset.unsupported': 'media-type',
  'encoding.unsupported': 'media-type',
  'entity.verify.failed': 'unreadable',
  'request.aborted': 'unreadable',
  'request.size.invalid': 'unreadable',
  'stream.encoding.set': 'unreadable',
  'stream.not.readable': 'unreadable',
};

/** Fastify's content-type parser errors (`FST_ERR_CTP_*`) by what they mean; any other one is `unreadable`. */
const FASTIFY: Record<string, ParserRefusal> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'unparsable',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'unparsable',
  FST_ERR_CTP_BODY_TOO_LARGE: 'too-large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'media-type',
};

/**
 * The refusal an error from the platform's body parser stands for, or `undefined` for any
 * other error (a middleware's, a hook's), which stays the app's to handle.
 */
export function parserRefusal(error: unknown): ParserRefusal | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, code } = error as { type?: unknown; code?: unknown };
  if (typeof type === 'string' && Object.hasOwn(BODY_PARSER, type)) return BODY_PARSER[type];
  if (typeof code === 'string' && code.startsWith('FST_ERR_CTP_')) return Object.hasOwn(FASTIFY, code) ? FASTIFY[code] : 'unreadable';
  return undefined;
}

/** The receiver's refusal (core's status and error body) for what the parser refused without reading it to the end. */
export const REFUSAL_CODES = {
  'too-large': 'WEBHOOK_BODY_TOO_LARGE',
  'media-type': 'WEBHOOK_CONTENT_TYPE',
  // Cut off on the way: possibly a real delivery, so core answers a 5xx and the service retries it.
  unreadable: 'WEBHOOK_BODY_UNREADABLE',
} as const satisfies Record<Exclude<ParserRefusal, 'unparsable'>, WebhookRefusalCode>;

/**
 * The answer for a body the framework's parser refused before the route ran (Express's
 * body-parser, Fastify's content-type parser): on the webhook route the receiver's own refusal
 * (except `unparsable`, which the receiver must see: pass the kept bytes on instead), on the
 * JSON routes the contract's `INVALID_BODY` (413 when too large).
 */
export function parserRefusalResponse(refusal: ParserRefusal, webhook: boolean): Response {
  if (webhook && refusal !== 'unparsable') return webhookRefusal(REFUSAL_CODES[refusal]);
  if (refusal === 'too-large') return errorResponse(routeError('INVALID_BODY', 'The body is larger than this server accepts.', {}, 413));
  if (refusal === 'media-type')
    return errorResponse(routeError('INVALID_BODY', 'Send the body as application/json.', { details: { field: 'Content-Type' } }));
  return errorResponse(
    routeError('INVALID_BODY', refusal === 'unparsable' ? 'The body is not valid JSON.' : 'The body could not be read.'),
  );
}
