import { createNodeHandler } from '@mediagen/core/node';
import { createWebhookHandler, type WebhookHandlerOptions } from '@mediagen/core/server';
import type { Request as ExpressRequest, RequestHandler } from 'express';

/**
 * The webhook receiver alone, as route middleware:
 * `app.post('/api/webhooks/mediagen', mediagenWebhook({ secrets, onEvent }))`. It is core's
 * receiver (`createWebhookHandler`, the handler's `webhook` options) through core's Node layer,
 * the same path as `createRouteHandler({ webhook })`'s `POST /webhooks/mediagen`; `onEvent` gets
 * Express's `req` as `context.platform`. Each call makes a receiver with its own de-duplication state.
 */
export function mediagenWebhook(options: WebhookHandlerOptions<ExpressRequest>): RequestHandler {
  const handle = createNodeHandler(createWebhookHandler<ExpressRequest>(options), { onError: options.onError });
  return function mediagenWebhookHandler(req, res) {
    void handle(req, res);
  };
}
