import { MediaGenClient } from '@mediagen/core';
import Fastify from 'fastify';
import { afterAll, expect, it } from 'vitest';
import { createRouteHandler } from '../src';

const app = Fastify();
app.register(createRouteHandler({ client: new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' }) }), {
  prefix: '/api',
});
app.post('/elsewhere', async (request) => ({ echoed: request.body }));
const origin = await app.listen({ port: 0, host: '127.0.0.1' });
afterAll(() => app.close());

it("leaves the app's own routes and their JSON parser alone outside the plugin's prefix", async () => {
  const res = await fetch(`${origin}/elsewhere`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  expect(await res.json()).toEqual({ echoed: { a: 1 } });
});

it('answers a path under the prefix that is none of its routes with the contract error body', async () => {
  const res = await fetch(`${origin}/api/nothing-here`);
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ error: 'NOT_FOUND', message: expect.any(String), next: expect.any(String), request_id: null });
});
