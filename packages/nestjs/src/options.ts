import type { ClientOptions } from '@mediagen/core';
import type { WebhookDedupeStore } from '@mediagen/core/server';

/** A decorator for the webhook route: `SkipThrottle()`, your own `@Public()`, `SetMetadata(...)`. */
export type WebhookRouteDecorator = MethodDecorator | ClassDecorator | ((...args: never[]) => unknown);

export interface MediaGenWebhookOptions {
  /** Route of the receiver, under the app's global prefix (`'webhooks/mediagen'`). */
  path: string;
  /** The endpoint's signing secret, or several during a rotation. Default: `MEDIAGEN_WEBHOOK_SECRET`. */
  secrets?: string | readonly string[];
  /**
   * De-duplication store. Default: one in-memory store owned by this module instance (right for
   * one instance); share one across instances (`RedisDedupeStore` from `@mediagen/redis`). `false` turns it off.
   */
  dedupe?: WebhookDedupeStore | false;
  /**
   * Decorators put on the webhook route, applied before Nest registers it: metadata ones
   * (`SkipThrottle()`, a `@Public()` your auth guard reads) and guard, interceptor, pipe or
   * exception filter instances. One given by class needs `forRoot`: with `forRootAsync` it comes
   * too late for Nest to build it, and start-up fails rather than run the route without it.
   */
  decorators?: readonly WebhookRouteDecorator[];
  /** Largest body verified, in bytes. Default 1 MiB. Also raise your platform's body limit above it. */
  maxBodyBytes?: number;
  /**
   * When to answer 503 if the body is still arriving or handlers are still running (the service
   * waits 5 s, and retries a 5xx). Default 4 000 ms.
   */
  deadlineMs?: number;
}

/** `MediaGenModule.forRoot(options)`: the client's options, plus the webhook receiver's. */
export interface MediaGenModuleOptions extends ClientOptions {
  /** Serve a webhook receiver that calls the `@OnGenerationEvent` handlers. Omit for no route. */
  webhook?: MediaGenWebhookOptions;
}
