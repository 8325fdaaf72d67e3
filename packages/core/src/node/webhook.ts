import { errorResponse } from '../server/error-reply';
import { createWebhookHandler, type WebhookContext, type WebhookHandlerOptions } from '../webhooks/handler';
import type { WebhookEvent } from '../webhooks/verify';
import { bodyParsedError } from './body-parsed';
import { type BodyLimit, parseLimit } from './limit';
import { findRawBody } from './raw-body';
import { sendWebResponse } from './send-response';
import type { NodeRequestLike, NodeResponseLike } from './types';
import { toWebRequest } from './web-request';

/** What `onEvent` gets on Node: core's context plus the framework's own request. */
export interface NodeWebhookContext<Req extends NodeRequestLike = NodeRequestLike> extends WebhookContext {
  req: Req;
}

export interface NodeWebhookHandlerOptions<Req extends NodeRequestLike = NodeRequestLike>
  extends Omit<WebhookHandlerOptions, 'onEvent' | 'maxBodyBytes' | 'context'> {
  onEvent(event: WebhookEvent, context: NodeWebhookContext<Req>): unknown;
  /** Largest body accepted: bytes, or `'100kb'`-style. Default `'1mb'`. Larger gets 413. */
  limit?: BodyLimit;
}

/**
 * Core's webhook receiver for any Node server (`node:http`, Express, NestJS on Express or
 * Fastify): finds the raw bytes (or streams the unread body), refuses a body a JSON parser
 * already consumed with the fix in the message, and writes the answer back.
 */
export function createNodeWebhookHandler<Req extends NodeRequestLike = NodeRequestLike>(
  options: NodeWebhookHandlerOptions<Req>,
): (req: Req, res: NodeResponseLike) => Promise<void> {
  const { limit, onEvent, ...rest } = options;
  const nodeRequests = new WeakMap<Request, Req>();
  const handle = createWebhookHandler<NodeWebhookContext<Req>>({
    ...rest,
    maxBodyBytes: parseLimit(limit, 1_048_576),
    onEvent,
    context: (base) => ({ ...base, req: nodeRequests.get(base.request) as Req }),
  });
  return async function nodeWebhookHandler(req, res) {
    const source = findRawBody(req);
    if (source.kind === 'consumed') {
      const error = bodyParsedError();
      (rest.onError ?? console.error)(error);
      return sendWebResponse(res, errorResponse(error));
    }
    const request = toWebRequest(req, { body: source.kind === 'bytes' ? source.body : undefined });
    nodeRequests.set(request, req);
    const response = await handle(request);
    // A body refused unread (413 by Content-Length) is drained, so the connection stays usable.
    await request.body?.cancel().catch(() => {});
    await sendWebResponse(res, response);
  };
}
