import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Answers `408` to a delivery whose body has not fully arrived by `deadlineMs`, then closes
 * the connection. On Nest the platform's body parser reads the body before the webhook route
 * runs (and waits as long as the sender likes), so core's own deadline never gets a say: this
 * watches the route's requests at the Node server, ahead of Express or Fastify. A body that
 * arrives in time is left alone (a slow handler is core's business: 503).
 * Returns the function that stops watching.
 */
export function watchBodyDeadline(server: Server, isWebhook: (req: IncomingMessage) => boolean, deadlineMs: number): () => void {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!isWebhook(req) || req.complete) return;
    const timer = setTimeout(() => {
      if (req.complete || res.headersSent) return;
      res.writeHead(408, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: 'WEBHOOK_BODY_TIMEOUT' }), () => req.socket.destroy());
    }, deadlineMs);
    timer.unref();
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
