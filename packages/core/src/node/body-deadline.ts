import { webhookRefusal } from '../webhooks/refusals';

/** The parts of Node's `IncomingMessage` the deadline watches. */
interface WatchedRequest {
  method?: string | undefined;
  url?: string | undefined;
  complete: boolean;
  socket: { destroy(): unknown };
  once(event: 'end', listener: () => void): unknown;
}
/** The parts of Node's `ServerResponse` it answers on. */
interface WatchedResponse {
  headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string, callback: () => void): unknown;
  once(event: 'close', listener: () => void): unknown;
}
/** A `node:http` (or https) server. */
export interface WatchedServer {
  prependListener(event: 'request', listener: (req: WatchedRequest, res: WatchedResponse) => void): unknown;
  removeListener(event: 'request', listener: (req: WatchedRequest, res: WatchedResponse) => void): unknown;
}

/**
 * Answers `503 WEBHOOK_BODY_TIMEOUT` (core's error body, as core's own receiver answers a body
 * that misses its deadline) to a delivery whose body has not fully arrived by `deadlineMs`,
 * then closes the connection. A 5xx, not a 4xx: the service ends its retry chain on a 4xx, and
 * a body slowed down by the network is worth another attempt. Where a framework's body
 * parser reads the body before the webhook route runs (and waits as long as the sender likes),
 * so core's own deadline never gets a say: this watches the route's requests at the Node
 * server, ahead of Express or Fastify. A body that arrives in time is left alone (a slow
 * handler is core's business: 503). Returns the function that stops watching.
 */
export function watchBodyDeadline(server: WatchedServer, isWebhook: (req: WatchedRequest) => boolean, deadlineMs: number): () => void {
  const onRequest = (req: WatchedRequest, res: WatchedResponse) => {
    if (!isWebhook(req) || req.complete) return;
    const timer = setTimeout(() => {
      if (req.complete || res.headersSent) return;
      const refusal = webhookRefusal('WEBHOOK_BODY_TIMEOUT');
      void refusal.text().then((body) => {
        if (res.headersSent) return;
        res.writeHead(refusal.status, { 'content-type': 'application/json', connection: 'close' });
        res.end(body, () => req.socket.destroy());
      });
    }, deadlineMs);
    (timer as { unref?: () => void }).unref?.();
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    res.once('close', clear);
  };
  server.prependListener('request', onRequest);
  return () => void server.removeListener('request', onRequest);
}

/** The route's full path (`/api/webhooks/mediagen`) from the global prefix and `webhook.path`. */
export function routePath(globalPrefix: string, path: string): string {
  const parts = [globalPrefix, path].flatMap((part) => part.split('/')).filter(Boolean);
  return `/${parts.join('/')}`;
}

/** Whether a request (its Node request's method and URL) is a delivery to `path`. */
export function isDeliveryTo(path: string, method: string | undefined, url: string | undefined): boolean {
  if (method !== 'POST') return false;
  const pathname = (url ?? '').split('?')[0]!;
  return pathname === path || pathname === `${path}/`;
}
