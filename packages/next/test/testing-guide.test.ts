// TESTING.md's Next.js example, as written there: its files in one, the route modules inline
// (after the env its vitest.config.ts sets), the package imported from source.
import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import { errorResponse } from '@mediagen/core/server';
import { createEmulator } from '@mediagen/emulator';
import { mediagenHandlers } from '@mediagen/emulator/msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebhookHandler } from '../src';

// vitest.config.ts's `test.env`
process.env.MEDIAGEN_API_KEY = 'svc_live_test';
process.env.MEDIAGEN_BASE_URL = 'http://emulator.mediagen.test';
process.env.MEDIAGEN_WEBHOOK_SECRET = 'whsec_test';

// lib/mediagen.ts
const client = new MediaGenClient(); // MEDIAGEN_API_KEY, MEDIAGEN_BASE_URL
const received: WebhookEvent[] = []; // stands in for your database

// app/api/generations/route.ts
async function submitRoute(request: Request) {
  try {
    const { prompt } = await request.json();
    const submitted = await client.generations.create(
      { model: 'image-fast', prompt },
      { idempotencyKey: request.headers.get('idempotency-key') ?? undefined },
    );
    return Response.json(submitted, { status: 202 });
  } catch (error) {
    return errorResponse(error); // the service's status and error body
  }
}

// app/api/webhooks/mediagen/route.ts
const webhookRoute = createWebhookHandler({ client, onEvent: (event) => void received.push(event) }); // MEDIAGEN_WEBHOOK_SECRET

// test/generations.test.ts

const emu = createEmulator({
  config: {
    timeScale: 0.001,
    accounts: [
      {
        id: 'acct_test',
        tier: 'pro',
        balance: 100,
        keys: [{ key: 'svc_live_test' }],
        webhooks: [{ url: 'https://app.example/api/webhooks/mediagen', secret: 'whsec_test' }],
      },
    ],
  },
  webhookFetch: webhookRoute, // the route handler itself receives the signed deliveries
});
const server = setupServer(...mediagenHandlers(emu));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(async () => {
  server.close();
  await emu.close();
});

const submit = (prompt: string, idempotencyKey: string) =>
  submitRoute(
    new Request('http://localhost/api/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ prompt }),
    }),
  );

it('the submit route answers 202; the same Idempotency-Key twice is one generation', async () => {
  const first = await submit('a fox', 'click-1');
  expect(first.status).toBe(202);
  const { generation_id } = await first.json();
  expect((await (await submit('a fox', 'click-1')).json()).generation_id).toBe(generation_id);
  const { ledger } = await emu.accounts.get('acct_test');
  expect(ledger.filter((row) => row.type === 'reserve' && row.generation_id === generation_id)).toHaveLength(1);
});

it('the webhook route verifies the signed delivery', async () => {
  const { generation_id } = await (await submit('a lighthouse', 'click-2')).json();
  const deliveries = await emu.deliveries.settled(generation_id);
  expect(deliveries.map((d) => [d.status, d.outcome])).toEqual([[200, 'delivered']]);
  expect(received.filter((e) => e.data.generation_id === generation_id).map((e) => e.type)).toEqual(['generation.completed']);
  const forged = await webhookRoute(
    new Request('http://localhost/api/webhooks/mediagen', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
      body: '{}',
    }),
  );
  expect(forged.status).toBe(401);
});

it('a failed generation arrives as generation.failed; a refused prompt is the 400 the service gives', async () => {
  const { generation_id } = await (await submit('x [[fail:model_unavailable]]', 'click-3')).json();
  await emu.deliveries.settled(generation_id);
  expect(received.find((e) => e.data.generation_id === generation_id)?.type).toBe('generation.failed');
  const refused = await submit('[[blocked]]', 'click-4');
  expect([refused.status, (await refused.json()).error]).toEqual([400, 'CONTENT_POLICY_VIOLATION']);
});
