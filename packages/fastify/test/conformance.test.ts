import { describeRouteConformance, describeWebhookConformance } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { createRouteHandler } from '../src';

/** A Fastify app on a free port. */
async function start(app: FastifyInstance): Promise<{ origin: string; close(): Promise<void> }> {
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  return { origin, close: () => app.close() };
}

/** The receiver alone calls no API: a client that is never used. */
const unusedClient = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });

describeRouteConformance({
  name: 'fastify 5',
  start: ({ basePath, ...options }) => {
    const app = Fastify();
    app.register(createRouteHandler(options), { prefix: basePath });
    // The app's own routes keep Fastify's JSON parser.
    app.post('/elsewhere', async (request) => ({ echoed: request.body }));
    return start(app);
  },
});

describeWebhookConformance({
  name: 'fastify 5',
  async start({ secrets, onEvent, maxBodyBytes }) {
    const app = Fastify();
    app.register(createRouteHandler({ client: unusedClient, webhook: { secrets, onEvent, maxBodyBytes }, onError: () => {} }), {
      prefix: '/api',
    });
    const { origin, close } = await start(app);
    return { url: `${origin}/api/webhooks/mediagen`, close };
  },
});
