import type { GenerationEvents } from '@mediagen/core';
import { createWebhookHandler as createCoreWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from '@mediagen/core/server';

export interface NextWebhookOptions extends WebhookHandlerOptions {
  /**
   * The endpoint's signing secret, or several during a rotation. Default: `MEDIAGEN_WEBHOOK_SECRET`,
   * comma-separated for a rotation (as the sample apps configure it).
   */
  secrets?: string | readonly string[];
  /**
   * A client whose `wait()`/`run()` should resolve on these webhooks: shorthand for
   * `events: client.events` (a client with none gets in-process events installed).
   */
  client?: { events?: GenerationEvents | undefined };
  /**
   * Keeps the handler's work alive after the answer (`context.acknowledge()`, or a handler still
   * running at the deadline): pass Next's `after` or the platform's `waitUntil`. Only called
   * while a delivery is being handled, so Next's `after()` never throws here.
   */
  waitUntil?(promise: Promise<unknown>): void;
}

/**
 * The webhook receiver as a Next.js route handler: `export const POST = createWebhookHandler({ secrets, onEvent })`
 * in `app/api/webhooks/mediagen/route.ts`. Everything is core's `createWebhookHandler` (verification,
 * de-duplication owned by this handler, the 2xx only once the claim is stored, status codes); this
 * adds the `client` shorthand. No `node:` import: it runs on Web-only runtimes too.
 */
export function createWebhookHandler(options: NextWebhookOptions): WebhookHandler {
  // The env default (MEDIAGEN_WEBHOOK_SECRET, comma-separated for several) and the `client`
  // shorthand (installing events on a client with none) are core's.
  return createCoreWebhookHandler(options);
}
