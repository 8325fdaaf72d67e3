import { MediaGenError } from '@mediagen/core';

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

/**
 * The SDK error for a refusal answered without core's receiver (the body never reached it),
 * with the status and code core's receiver gives the same case; `errorReply` makes its body.
 */
export function refusalError(refusal: Exclude<ParserRefusal, 'unparsable'>): MediaGenError {
  switch (refusal) {
    case 'too-large':
      return new MediaGenError("The body is larger than the app's body parser accepts.", {
        status: 413,
        code: 'WEBHOOK_BODY_TOO_LARGE',
        next: "Raise the platform's body limit (and webhook.maxBodyBytes) if this is a real delivery.",
      });
    case 'media-type':
      return new MediaGenError('Webhook deliveries are application/json in UTF-8.', {
        status: 415,
        code: 'WEBHOOK_CONTENT_TYPE',
        next: 'Send the body as application/json.',
      });
    case 'unreadable':
      // Cut off on the way: possibly a real delivery, so a 5xx and the service retries it.
      return new MediaGenError('The body could not be read.', {
        status: 500,
        code: 'WEBHOOK_BODY_UNREADABLE',
        next: 'The service retries the delivery.',
        retryable: true,
      });
  }
}
