import { type ServerType, serve } from '@hono/node-server';
import { describeRouteConformance, describeWebhookConformance } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import { Hono } from 'hono';
import { createRouteHandler } from '../src';

/** A Hono app on Node (`@hono/node-server`) at a free port. */
async function start(app: Hono): Promise<{ origin: string; close(): Promise<void> }> {
  let server!: ServerType;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        (server as { closeAllConnections?(): void }).closeAllConnections?.();
      }),
  };
}

/** The receiver alone calls no API: a client that is never used. */
const unusedClient = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });

describeRouteConformance({
  name: 'hono 4',
  start: (options) => {
    const app = new Hono();
    // The mount path written once: the handler's basePath (the suite passes `/api`).
    app.use(createRouteHandler(options));
    app.get('/api/elsewhere', (c) => c.json({ app: true }));
    return start(app);
  },
});

describeWebhookConformance({
  name: 'hono 4',
  async start({ secrets, onEvent, maxBodyBytes }) {
    const app = new Hono();
    app.use(createRouteHandler({ client: unusedClient, basePath: '/api', webhook: { secrets, onEvent, maxBodyBytes }, onError: () => {} }));
    const { origin, close } = await start(app);
    return { url: `${origin}/api/webhooks/mediagen`, close };
  },
});
