import { type BodyLimit, findRawBody, parseLimit, sendWebResponse, toWebRequest } from '@mediagen/core/node';
import { type ApiHandlerOptions, createApiHandler } from '@mediagen/core/server';
import type { Request as ExpressRequest, RequestHandler } from 'express';

export interface MediaGenRouterOptions extends Omit<ApiHandlerOptions<ExpressRequest>, 'maxBodyBytes'> {
  /** Largest submit body: bytes, or `'100kb'`-style. Default `'100kb'`. */
  limit?: BodyLimit;
}

/**
 * JSON routes for an app's own front end, relative to where it is mounted
 * (`app.use('/api/mediagen', mediagenRouter({ client }))`): `POST /generations` (202 body),
 * `GET /generations/:id`, `GET /models`, `GET /credits`. The routes are core's
 * `createApiHandler`; other paths fall through to `next()` with the request untouched.
 */
export function mediagenRouter(options: MediaGenRouterOptions): RequestHandler {
  const { limit, ...rest } = options;
  const api = createApiHandler<ExpressRequest>({ ...rest, maxBodyBytes: parseLimit(limit, 100 * 1024) });
  return async function mediagenRoutes(req, res, next) {
    if (!api.handles(req.method, req.path)) return next();
    try {
      const source = findRawBody(req);
      // A body `express.json()` already parsed is passed on as JSON: unlike a webhook, nothing here is signed.
      const body = source.kind === 'bytes' ? source.body : source.kind === 'consumed' ? JSON.stringify(req.body) : undefined;
      await sendWebResponse(res, await api.handle(toWebRequest(req, { body }), req.path, req));
    } catch (error) {
      next(error);
    }
  };
}
