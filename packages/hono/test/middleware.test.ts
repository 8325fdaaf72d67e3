import { makePayload } from '@mediagen/conformance';
import { MediaGenClient, signWebhook } from '@mediagen/core';
import { Hono } from 'hono';
import { expect, it } from 'vitest';
import { createRouteHandler } from '../src';

const app = new Hono();
app.use(
  createRouteHandler({
    client: new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' }),
    basePath: '/api',
    allowAnonymous: true,
  }),
);
app.get('/api/generations', (c) => c.json({ app: 'list' }));
app.post('/api/mine', async (c) => c.json({ echoed: await c.req.json() }));

it("passes what the handler does not serve on to the app's own routes, body unread", async () => {
  // No source: the list is the app's own route.
  expect(await (await app.request('/api/generations')).json()).toEqual({ app: 'list' });
  const res = await app.request('/api/mine', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  expect(await res.json()).toEqual({ echoed: { a: 1 } });
});

it('answers its own routes in-process too (app.request), as on any Web-standard runtime', async () => {
  const res = await app.request('/api/generations', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
  expect(res.status).toBe(422);
  expect(await res.json()).toMatchObject({ error: 'INVALID_BODY', details: { field: 'Content-Type' } });
});

it("hands webhook work after the answer to the request's own waitUntil (Workers' executionCtx)", async () => {
  const kept: Promise<unknown>[] = [];
  const worker = new Hono();
  const client = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });
  worker.use(createRouteHandler({ client, basePath: '/api', webhook: { secrets: 'whsec_worker', onEvent: () => {} } }));
  const payload = makePayload();
  const body = JSON.stringify(payload);
  const res = await worker.request(
    '/api/webhooks/mediagen',
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-event': 'generation.completed',
        'x-service-delivery-id': crypto.randomUUID(),
        'x-service-signature': await signWebhook(body, 'whsec_worker'),
      },
      body,
    },
    {},
    { waitUntil: (promise: Promise<unknown>) => void kept.push(promise), passThroughOnException: () => {}, props: {} },
  );
  expect(res.status).toBe(200);
  // The handler's outcome and the publish to client.events.
  expect(kept.length).toBe(2);
  await Promise.all(kept);
});
