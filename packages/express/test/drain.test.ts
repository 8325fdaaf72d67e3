import { listen } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import express from 'express';
import { expect, it } from 'vitest';
import { createRouteHandler } from '../src';

// The graceful shutdown's first step (issue 36): the routes' drain takes the app out of the
// balancer's rotation (health 503, draining) before the server closes.
it('exposes the handler drain: GET /health answers 503 { draining: true } once it is called', async () => {
  const client = new MediaGenClient({ apiKey: 'svc_live_drain', baseUrl: 'http://127.0.0.1:9' });
  const routes = createRouteHandler({ client, allowAnonymous: true });
  const app = express();
  app.use('/api', routes);
  const server = await listen(app);
  try {
    expect(await routes.drain({ timeoutMs: 0 })).toEqual({ streamsEnded: 0, requestsLeft: 0 });
    const health = await fetch(`${server.origin}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ ok: false, draining: true, problems: [] });
  } finally {
    await server.close();
  }
});
