import { createNodeWebhookHandler, type NodeWebhookContext, type NodeWebhookHandlerOptions } from '@mediagen/core/node';
import type { Request as ExpressRequest, RequestHandler } from 'express';

/** What `onEvent` gets: core's context plus the Express request that carried the delivery. */
export type ExpressWebhookContext = NodeWebhookContext<ExpressRequest>;

export type MediaGenWebhookOptions = NodeWebhookHandlerOptions<ExpressRequest>;

/**
 * Webhook receiver as route middleware:
 * `app.post('/api/webhooks/mediagen', mediagenWebhook({ secrets, onEvent }))`.
 * Raw-body capture, verification, de-duplication and the status codes are core's
 * (`createNodeWebhookHandler`); each call makes a receiver with its own de-duplication state.
 */
export function mediagenWebhook(options: MediaGenWebhookOptions): RequestHandler {
  const handle = createNodeWebhookHandler<ExpressRequest>(options);
  return function mediagenWebhookHandler(req, res, next) {
    handle(req, res).catch(next);
  };
}
