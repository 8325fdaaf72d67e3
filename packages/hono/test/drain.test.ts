import { MediaGenClient } from '@mediagen/core';
import { Hono } from 'hono';
import { expect, it } from 'vitest';
import { createRouteHandler } from '../src';

// The graceful shutdown's first step (issue 36): the middleware's drain takes the app out of the
// balancer's rotation (health 503, draining) before the server closes.
it('exposes the handler drain: GET /health answers 503 { draining: true } once it is called', async () => {
  const client = new MediaGenClient({ apiKey: 'svc_live_drain', baseUrl: 'http://127.0.0.1:9' });
  const mediagen = createRouteHandler({ client, basePath: '/api', allowAnonymous: true });
  const app = new Hono().use(mediagen);
  expect(await mediagen.drain({ timeoutMs: 0 })).toEqual({ streamsEnded: 0, requestsLeft: 0 });
  const health = await app.request('/api/health');
  expect(health.status).toBe(503);
  expect(await health.json()).toEqual({ ok: false, draining: true, problems: [] });
});
