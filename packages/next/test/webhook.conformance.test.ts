import { describeWebhookConformance } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import { createRouteHandler, createWebhookHandler } from '../src';
import { serveRoute } from './support/serve';

/** The receiver calls no API: a client that is never used. */
const unusedClient = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });

// The fixed name: `export const POST = createWebhookHandler({ secrets, onEvent })` in a route of its own.
describeWebhookConformance({
  name: 'next webhook route',
  start: async ({ secrets, onEvent, maxBodyBytes }) => {
    const { origin, close } = await serveRoute({ POST: createWebhookHandler({ secrets, onEvent, maxBodyBytes }) });
    return { url: `${origin}/api/webhooks/mediagen`, close };
  },
});

// The catch-all `app/api/[...mediagen]/route.ts`, which serves the receiver with the other routes.
describeWebhookConformance({
  name: 'next catch-all route',
  start: async ({ secrets, onEvent, maxBodyBytes }) => {
    const routes = createRouteHandler({ client: unusedClient, webhook: { secrets, onEvent, maxBodyBytes }, onError: () => {} });
    const { origin, close } = await serveRoute(routes);
    return { url: `${origin}/api/webhooks/mediagen`, close };
  },
});
