import { RAW_BODY_HELP, WebhookVerificationError, type WebhookEvent } from '@mediagen/core';
import { handleWebhook, type HandleWebhookOptions, type WebhookContext } from '@mediagen/core/server';
import type { NextFunction, Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express';
import { parseLimit, type BodyLimit } from './limit';
import { findRawBody } from './raw-body';
import { sendWebResponse } from './send-response';
import { toWebRequest } from './web-request';

export interface ExpressWebhookContext extends WebhookContext {
  /** The Express request that carried the delivery. */
  req: ExpressRequest;
}

export interface MediaGenWebhookOptions extends Omit<HandleWebhookOptions, 'secrets' | 'onEvent' | 'maxBodyBytes'> {
  /** The endpoint's signing secret, or several during a rotation. Default: `process.env.MEDIAGEN_WEBHOOK_SECRET`. */
  secrets?: string | readonly string[];
  /** Runs once per event (de-duplicated on generation_id + type). Throwing answers 5xx, so the service retries. */
  onEvent(event: WebhookEvent, context: ExpressWebhookContext): unknown;
  /** Largest body accepted: bytes, or `'100kb'`-style. Default `'1mb'`. Larger gets 413. */
  limit?: BodyLimit;
}

/**
 * Webhook receiver as route middleware:
 * `app.post('/api/webhooks/mediagen', mediagenWebhook({ secrets, onEvent }))`.
 * Verification, de-duplication and the status codes are `handleWebhook` from `@mediagen/core`;
 * this only turns the Express request into a Web `Request` and writes the answer back.
 */
export function mediagenWebhook(options: MediaGenWebhookOptions): RequestHandler {
  const { onEvent, limit, secrets, ...rest } = options;
  const maxBodyBytes = parseLimit(limit, 1_048_576);
  return async function mediagenWebhookHandler(req: ExpressRequest, res: ExpressResponse, next: NextFunction) {
    try {
      const source = findRawBody(req);
      if (source.kind === 'consumed') {
        // The app's own mount order is wrong: a 5xx keeps the delivery alive for a retry once fixed.
        const error = new WebhookVerificationError(
          `The request body was already read by another middleware (usually express.json() mounted before this route). ${RAW_BODY_HELP}`,
          'WEBHOOK_BODY_PARSED',
          'Mount the webhook route before app.use(express.json()), or exclude it from the JSON parser; mediagenWebhook reads the raw body itself.',
        );
        (rest.onError ?? console.error)(error);
        res.status(500).json({ error: error.code, message: error.message, next: error.next });
        return;
      }
      const request = toWebRequest(req, source.kind === 'bytes' ? source.body : undefined);
      const response = await handleWebhook(request, {
        ...rest,
        secrets: secrets ?? process.env.MEDIAGEN_WEBHOOK_SECRET ?? [],
        maxBodyBytes,
        onEvent: (event, context) => onEvent(event, { ...context, req }),
      });
      // A body refused unread (413 by Content-Length) is drained, so the connection stays usable.
      await request.body?.cancel().catch(() => {});
      await sendWebResponse(res, response);
    } catch (error) {
      next(error);
    }
  };
}
