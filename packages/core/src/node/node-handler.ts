import { errorResponse } from '../server/error-reply';
import type { MediaGenHandler } from '../server/handler';
import type { WebhookHandler } from '../server/webhook';
import { bodyParsedError } from './body-parsed';
import { parserRefusal, parserRefusalResponse } from './parser-refusal';
import { findRawBody } from './raw-body';
import { sendWebResponse } from './send-response';
import { type NodeRequestSource, type NodeResponseLike, nodeRequestOf } from './types';
import { toWebRequest } from './web-request';

export interface NodeHandlerOptions<Req> {
  /**
   * The path and query to route on, when not the request's own URL: a router mounted under a
   * prefix routes on its part (Express's `req.url` inside `app.use('/api', …)`).
   */
  url?(req: Req): string;
  /** Sees a failure to answer at all (the response stream broke). Default `console.error`. */
  onError?(error: unknown): void;
}

/** Answers one Node request; with `next`, a path that is none of the handler's routes goes on to it untouched. */
export interface NodeHandler<Req> {
  (req: Req, res: NodeResponseLike, next?: (error?: unknown) => void): Promise<void>;
  /**
   * Answers an error a framework's body parser raised before the route ran (body-parser's
   * `type`s, Fastify's `FST_ERR_CTP_*`) on one of the handler's routes, with core's status and
   * error body; resolves false (nothing sent) for any other error or path, which stays the app's.
   */
  parserError(error: unknown, req: Req, res: NodeResponseLike): Promise<boolean>;
}

/**
 * Core's one server handler on any Node server (`node:http`, Express, Fastify's `request`,
 * NestJS on either): the request in as a Web `Request` (raw bytes a parser kept, or the unread
 * stream, so limits and deadlines are core's), the answer streamed back. A JSON body another
 * middleware already parsed is passed on as JSON on the app's routes (nothing there is signed)
 * and refused on the webhook route, whose signature covers bytes that are gone.
 */
export function createNodeHandler<Req extends NodeRequestSource>(
  handler: MediaGenHandler<Req>,
  options?: NodeHandlerOptions<Req>,
): NodeHandler<Req>;
/**
 * The webhook receiver alone (`createWebhookHandler`) on any Node server: every path it is
 * given is its route. (Build the receiver in its own statement, or name its platform type:
 * nested in this call, TypeScript infers it from the first signature.)
 */
export function createNodeHandler<Req extends NodeRequestSource>(
  handler: WebhookHandler<Req>,
  options?: NodeHandlerOptions<Req>,
): NodeHandler<Req>;
export function createNodeHandler<Req extends NodeRequestSource>(
  handler: MediaGenHandler<Req> | WebhookHandler<Req>,
  options: NodeHandlerOptions<Req> = {},
): NodeHandler<Req> {
  const routeOf = (req: Req) => {
    const node = nodeRequestOf(req);
    const url = options.url?.(req) ?? node.originalUrl ?? node.url ?? '/';
    return { node, url, route: handler.route(node.method ?? 'GET', pathOf(url)) };
  };
  const handle = async function mediagenNodeHandler(req: Req, res: NodeResponseLike, next?: (error?: unknown) => void) {
    const { node, url, route } = routeOf(req);
    if (!route && next) return next();
    try {
      const source = findRawBody(req);
      let body: Uint8Array | string | undefined;
      if (source.kind === 'bytes') body = source.body;
      else if (source.kind === 'consumed' && route === 'webhook') return await sendWebResponse(res, bodyParsed(options));
      else if (source.kind === 'consumed') body = JSON.stringify((req as { body?: unknown }).body ?? null);
      const request = toWebRequest(node, { body, url });
      const response = await handler(request, req);
      // A body refused unread (413 by Content-Length) is drained, so the connection stays usable.
      await request.body?.cancel().catch(() => {});
      await sendWebResponse(res, response);
    } catch (error) {
      if (next) return next(error);
      (options.onError ?? console.error)(error);
      if (!res.headersSent) await sendWebResponse(res, errorResponse(error)).catch(() => {});
    }
  };
  return Object.assign(handle, {
    async parserError(error: unknown, req: Req, res: NodeResponseLike) {
      const refusal = parserRefusal(error);
      const { route } = routeOf(req);
      if (!refusal || !route || res.headersSent) return false;
      // Bytes that arrived but are not JSON: on the webhook route the receiver judges them
      // (kept bytes are verified; bytes the parser ate are the mount-order mistake it explains).
      // The upload route takes media types only, which no parser reads (the adapters leave them
      // unread): a parser that ran, and failed, read a type it refuses anyway. It answers for
      // itself, as without the parser (401 with no user, else 415 MEDIA_NOT_ACCEPTED), never with
      // a JSON route's INVALID_BODY (found: Fastify's text/plain parser on a PNG's bytes).
      if ((route === 'webhook' && refusal === 'unparsable') || route === 'uploads') await handle(req, res);
      else await sendWebResponse(res, parserRefusalResponse(refusal, route === 'webhook'));
      return true;
    },
  });
}

/** Refuses a webhook whose bytes a JSON parser consumed, and tells the app. */
function bodyParsed(options: NodeHandlerOptions<never>): Response {
  const error = bodyParsedError();
  (options.onError ?? console.error)(error);
  return errorResponse(error);
}

function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
