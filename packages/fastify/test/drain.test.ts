import { MediaGenClient } from '@mediagen/core';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { createRouteHandler } from '../src';

// The graceful shutdown's first step (issue 36): the plugin's drain takes the app out of the
// balancer's rotation (health 503, draining) before the server closes; every registration drains.
it('exposes the handlers drain: GET /health answers 503 { draining: true } once it is called', async () => {
  const client = new MediaGenClient({ apiKey: 'svc_live_drain', baseUrl: 'http://127.0.0.1:9' });
  const mediagen = createRouteHandler({ client, allowAnonymous: true });
  const app = Fastify();
  app.register(mediagen, { prefix: '/api' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    expect(await mediagen.drain({ timeoutMs: 0 })).toEqual({ streamsEnded: 0, requestsLeft: 0 });
    const address = app.server.address() as { port: number };
    const health = await fetch(`http://127.0.0.1:${address.port}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ ok: false, draining: true, problems: [] });
  } finally {
    await app.close();
  }
});
