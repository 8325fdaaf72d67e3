import { createMediaGenHandler, type MediaGenHandler, type MediaGenHandlerOptions } from '@mediagen/core/server';
import type { Context, MiddlewareHandler } from 'hono';

/**
 * Core's handler options; hooks get Hono's `c` as `context.platform`. Hono's middleware has no
 * mount point of its own to read, so the mount path is `basePath`, written once.
 */
export type RouteHandlerOptions = MediaGenHandlerOptions<Context>;

/**
 * Core's one server handler (`createMediaGenHandler`) as Hono middleware:
 * `app.use(createRouteHandler({ client, basePath: '/api', identify, source }))`. The request is
 * Hono's own Web `Request`, so the same code runs on Node, Bun, Deno and Workers; a path the
 * handler does not serve goes on to the app's own routes (so it can be used on every path).
 */
/** The middleware, and the handler's `drain` for a graceful shutdown (on SIGTERM, before the server closes). */
export type RouteMiddleware = MiddlewareHandler & Pick<MediaGenHandler, 'drain'>;

export function createRouteHandler(options: RouteHandlerOptions): RouteMiddleware {
  const { webhook } = options;
  // On Workers the runtime stops at the response: webhook work after it goes to the request's own waitUntil.
  const waitUntil = webhook?.waitUntil ?? ((promise: Promise<unknown>, c: Context | undefined) => executionCtxOf(c)?.waitUntil(promise));
  const handler = createMediaGenHandler<Context>({ ...options, ...(webhook && { webhook: { ...webhook, waitUntil } }) });
  const middleware: MiddlewareHandler = async function mediagenMiddleware(c, next) {
    if (!handler.route(c.req.method, new URL(c.req.url).pathname)) return next();
    return handler(c.req.raw, c);
  };
  return Object.assign(middleware, { drain: handler.drain });
}

/** The request's execution context, where the runtime has one (Workers; not Node's server, whose getter throws). */
function executionCtxOf(c: Context | undefined): { waitUntil(promise: Promise<unknown>): void } | undefined {
  try {
    return c?.executionCtx;
  } catch {
    return undefined;
  }
}
