import { createMediaGenHandler, type MediaGenHandler, type MediaGenHandlerOptions } from '@mediagen/core/server';

/** What Next passes a route handler as its second argument (`params` is a Promise since Next 15). */
export interface RouteContext {
  params?: Promise<Record<string, string | string[] | undefined>> | Record<string, string | string[] | undefined>;
}

/**
 * A Next.js route handler: a Web `Request` in, a `Response` out; Next passes its route context
 * second. Two signatures, the one without the context last: Next 15's route type check reads the
 * last one, and refuses a context that may be undefined (`context?: RouteContext`).
 */
export interface NextRouteHandler {
  (request: Request, context: RouteContext): Promise<Response>;
  (request: Request): Promise<Response>;
}

/** Core's handler options, with `basePath` defaulting to `/api` (the catch-all `app/api/[...mediagen]/route.ts`). */
export type RouteHandlerOptions = MediaGenHandlerOptions<RouteContext>;

export interface MediaGenRoutes {
  GET: NextRouteHandler;
  POST: NextRouteHandler;
  /** Preflights from the handler's `cors` origins (none by default: then every preflight is refused). */
  OPTIONS: NextRouteHandler;
  /** Export these too for the contract's 405 body (with `Allow`) instead of Next's bare 405. */
  PUT: NextRouteHandler;
  PATCH: NextRouteHandler;
  DELETE: NextRouteHandler;
  /** The handler the routes mount: pass it to `createGenerationActions` so server actions follow the same rules. */
  handler: MediaGenHandler<RouteContext>;
}

/**
 * Core's one server handler (`createMediaGenHandler`) as the methods of a catch-all route:
 * `export const { GET, POST, OPTIONS } = createRouteHandler(handler)` in
 * `app/api/[...mediagen]/route.ts`. Give it the app's handler (built once, shared with the server
 * actions), or its options (`basePath` then defaults to `/api`). The handler routes on the
 * request's own path, so the catch-all's params are not read; every method is the same function.
 * No `node:` import and no `next` import: it runs on the Node and edge runtimes.
 */
export function createRouteHandler(handlerOrOptions: MediaGenHandler<RouteContext> | RouteHandlerOptions): MediaGenRoutes {
  const handler =
    typeof handlerOrOptions === 'function'
      ? handlerOrOptions
      : createMediaGenHandler<RouteContext>({ ...handlerOrOptions, basePath: handlerOrOptions.basePath ?? '/api' });
  const route: NextRouteHandler = (request: Request, context?: RouteContext) => handler(request, context);
  return { GET: route, POST: route, OPTIONS: route, PUT: route, PATCH: route, DELETE: route, handler };
}
