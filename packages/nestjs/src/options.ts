import type { ClientOptions } from '@mediagen/core';
import type { MediaGenContext, MediaGenHandlerOptions, MediaGenWebhookOptions } from '@mediagen/core/server';

/** A decorator for one of the module's routes: `SkipThrottle()`, your own `@Public()`, `UseGuards(...)`, `SetMetadata(...)`. */
export type RouteDecorator = MethodDecorator | ClassDecorator | ((...args: never[]) => unknown);

/**
 * What Nest hands the routes as the request: Express's `req`, or Fastify's `request` (whose Node
 * request is `raw`). The hooks (`identify`, `authorize`, `beforeSubmit`, …) see it as `platform`.
 */
export type NestPlatformRequest = Record<string, unknown>;

/** Where the decorators go and what they are checked against: shared by both routes. */
interface DecoratedRoute {
  /**
   * Decorators put on the route before Nest registers it: metadata ones (`SkipThrottle()`, a
   * `@Public()` your auth guard reads) and guard, interceptor, pipe or exception filter
   * instances. One given by class needs `forRoot`: with `forRootAsync` it comes too late for
   * Nest to build it, and start-up fails rather than run the route without it.
   */
  decorators?: readonly RouteDecorator[];
}

/**
 * The browser-facing JSON routes (`POST/GET /generations`, `GET /generations/:id`,
 * `GET /generations/:id/events`, `GET /credits`, `POST /estimate`, `GET /models`): core's one
 * handler (`createMediaGenHandler` from `@mediagen/core/server`) with these options; the module
 * supplies the client.
 */
export interface MediaGenModuleRoutesOptions
  extends Omit<MediaGenHandlerOptions<NestPlatformRequest>, 'client' | 'webhook' | 'basePath' | 'onError'>,
    DecoratedRoute {
  /** Where the routes live, under the app's global prefix: `'api'` serves `POST /api/generations`, … */
  basePath: string;
}

/** The webhook receiver: core's (verification, de-duplication, retry-driving status codes), at a path of your choice. */
export interface MediaGenModuleWebhookOptions extends Omit<MediaGenWebhookOptions<NestPlatformRequest>, 'onEvent'>, DecoratedRoute {
  /** Route of the receiver, under the app's global prefix (`'api/webhooks/mediagen'`). */
  path: string;
}

/** `MediaGenModule.forRoot(options)`: the client's options, plus the routes the module serves. */
export interface MediaGenModuleOptions extends ClientOptions {
  /** Serve the browser-facing JSON routes. Omit for none. */
  routes?: MediaGenModuleRoutesOptions;
  /** Serve a webhook receiver that calls the `@OnGenerationEvent` handlers. Omit for no route. */
  webhook?: MediaGenModuleWebhookOptions;
  /**
   * Sees every failure the routes answer 5xx (the browser gets a masked message) and the
   * webhook receiver's failures (bad signatures, handler errors). Default: Nest's `Logger`.
   */
  onError?(error: unknown, context?: MediaGenContext<NestPlatformRequest>): void;
}
