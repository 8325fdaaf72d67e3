import { createMediaGenHandler, type MediaGenHandlerOptions } from '@mediagen/core/server';
import type { Context, MiddlewareHandler } from 'hono';

export type { MediaGenContext, MediaGenHandlerOptions } from '@mediagen/core/server';

/** Core's handler options; hooks get Hono's `c` as `context.platform`. `basePath` is the path the middleware is mounted on. */
export type MediaGenHonoOptions = MediaGenHandlerOptions<Context>;

/**
 * Core's one server handler (`createMediaGenHandler`) as Hono middleware:
 * `app.use('/api/*', mediagen({ client, basePath: '/api', identify, source }))`. The request is
 * Hono's own Web `Request`, so the same code runs on Node, Bun, Deno and Workers; a path the
 * handler does not serve goes on to the app's own routes.
 */
export function mediagen(options: MediaGenHonoOptions): MiddlewareHandler {
  const handler = createMediaGenHandler<Context>(options);
  return async function mediagenMiddleware(c, next) {
    if (!handler.route(c.req.method, new URL(c.req.url).pathname)) return next();
    return handler(c.req.raw, c);
  };
}
