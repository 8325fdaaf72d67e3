import { MediaGenClient } from '@mediagen/core';
import { Hono } from 'hono';
import { expect, it } from 'vitest';
import { mediagen } from '../src';

const app = new Hono();
app.use('/api/*', mediagen({ client: new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' }), basePath: '/api' }));
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
