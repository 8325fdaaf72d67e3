import { createWebhookHandler as createReceiver, type WebhookHandler, type WebhookHandlerOptions } from '@mediagen/core/server';
import type { NextRouteHandler, RouteContext } from './route';

/**
 * The webhook receiver alone as a Next.js route handler:
 * `export const POST = createWebhookHandler({ secrets, onEvent })` in
 * `app/api/webhooks/mediagen/route.ts`. It is core's `createWebhookHandler` with the handler's
 * `webhook` options (plus `client`, `onError`), the same receiver as `createRouteHandler({ webhook })`'s
 * `POST /webhooks/mediagen`; `onEvent` gets Next's route context as `context.platform`. Pass
 * Next's `after` as `waitUntil` to keep work alive after the answer. No `node:` import: it runs
 * on Web-only runtimes too.
 */
export function createWebhookHandler(
  options: WebhookHandlerOptions<RouteContext>,
): NextRouteHandler & Pick<WebhookHandler<RouteContext>, 'route'> {
  // Typed as a Next route handler (core's optional `platform` fails Next 15's route type check).
  return createReceiver<RouteContext>(options);
}
