// TESTING.md's Express example, as written there (its two files in one; the package imported from source).
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import { createEmulator } from '@mediagen/emulator';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRouteHandler, mediagenWebhook } from '../src/index.js';

// src/app.ts
function createApp(options: { client: MediaGenClient; webhookSecret: string; onEvent(event: WebhookEvent): unknown }) {
  const app = express();
  app.post('/api/webhooks/mediagen', mediagenWebhook({ secrets: options.webhookSecret, client: options.client, onEvent: options.onEvent }));
  // No auth in this example: every visitor is one user, said explicitly. An app names its users
  // with `identify` and keeps a list per user with `source` (the ledger).
  app.use('/api', createRouteHandler({ client: options.client, allowAnonymous: true, allowModels: ['image-fast'] }));
  return app;
}

const KEY = 'svc_live_test';
const SECRET = 'whsec_test';
let appUrl = '';
const emu = createEmulator({
  config: {
    timeScale: 0.001,
    accounts: [
      {
        id: 'acct_test',
        tier: 'pro',
        balance: 100,
        keys: [{ key: KEY }],
        webhooks: [{ url: 'http://app.test/api/webhooks/mediagen', secret: SECRET }],
      },
    ],
  },
  // Each signed delivery goes to the app under test, on its port: same headers, same bytes.
  webhookFetch: async (delivery) =>
    fetch(`${appUrl}/api/webhooks/mediagen`, { method: 'POST', headers: delivery.headers, body: await delivery.arrayBuffer() }),
});
const events: WebhookEvent[] = [];
const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, fetch: emu.fetch });
let server: Server;

beforeAll(async () => {
  server = createApp({ client, webhookSecret: SECRET, onEvent: (event) => void events.push(event) }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await emu.close();
});

const submit = (prompt: string, idempotencyKey: string) =>
  fetch(`${appUrl}/api/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ model: 'image-fast', prompt }),
  });

it('POST /api/generations answers 202; a double click with one key bills once', async () => {
  const first = await submit('a fox', 'click-1');
  const second = await submit('a fox', 'click-1');
  expect(first.status).toBe(202);
  const { generation_id } = await first.json();
  expect((await second.json()).generation_id).toBe(generation_id);
  const { ledger } = await emu.accounts.get('acct_test');
  expect(ledger.filter((row) => row.type === 'reserve' && row.generation_id === generation_id)).toHaveLength(1);
});

it('the webhook route verifies the signed delivery and hands the event over once', async () => {
  const { generation_id } = await (await submit('a lighthouse', 'click-2')).json();
  const deliveries = await emu.deliveries.settled(generation_id);
  expect(deliveries.map((d) => [d.status, d.outcome])).toEqual([[200, 'delivered']]);
  expect(events.filter((e) => e.data.generation_id === generation_id).map((e) => e.type)).toEqual(['generation.completed']);
});

it('a forged delivery is refused with 401', async () => {
  const forged = await fetch(`${appUrl}/api/webhooks/mediagen`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
    body: JSON.stringify({ generation_id: 'x', status: 'completed' }),
  });
  expect(forged.status).toBe(401);
});

it('a failed generation reaches the app as generation.failed, refunded', async () => {
  const { generation_id } = await (await submit('x [[fail:model_unavailable]]', 'click-3')).json();
  await emu.deliveries.settled(generation_id);
  const failed = events.find((e) => e.data.generation_id === generation_id);
  expect(failed?.type).toBe('generation.failed');
  const { ledger } = await emu.accounts.get('acct_test');
  expect(ledger.filter((row) => row.type === 'refund' && row.generation_id === generation_id)).toHaveLength(1);
});
