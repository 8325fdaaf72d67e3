import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler, type MediaGenHandler, type MediaGenHandlerOptions } from '@mediagen/core/server';
import type { ErrorRequestHandler, Request as ExpressRequest, RequestHandler } from 'express';

/** Core's handler options; hooks get Express's `req` as `context.platform`. The mount path is `app.use`'s. */
export type RouteHandlerOptions = Omit<MediaGenHandlerOptions<ExpressRequest>, 'basePath'>;

/**
 * Core's one server handler (`createMediaGenHandler`) as Express middleware, with its routes
 * relative to where it is mounted: `app.use('/api', createRouteHandler({ client, identify, source }))`.
 * Hooks get Express's `req` as `context.platform`. A path it does not serve goes on to `next()`
 * with the request untouched; the body is read by core (raw bytes, limits, deadline), or taken
 * as parsed when `express.json()` ran first; a body that parser refused on these routes gets
 * core's status and error body (the second middleware), not Express's HTML page.
 */
/** The two middlewares `app.use` takes, and the handler's `drain` for a graceful shutdown (on SIGTERM, before `server.close()`). */
export type RouteHandlers = [RequestHandler, ErrorRequestHandler] & Pick<MediaGenHandler, 'drain'>;

export function createRouteHandler(options: RouteHandlerOptions): RouteHandlers {
  const handler = createMediaGenHandler<ExpressRequest>(options);
  // Inside `app.use('/api', …)`, `req.url` is the path below the mount point.
  const handle = createNodeHandler(handler, { url: (req) => req.url, onError: options.onError });
  const routes: RequestHandler = (req, res, next) => void handle(req, res, next);
  // Four parameters: Express tells an error middleware by its arity.
  const parserErrors: ErrorRequestHandler = (error, req, res, next) =>
    void handle.parserError(error, req, res).then((answered) => answered || next(error), next);
  return Object.assign([routes, parserErrors] as [RequestHandler, ErrorRequestHandler], { drain: handler.drain });
}
