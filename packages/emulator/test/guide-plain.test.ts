// TESTING.md's "Plain code" example, as written there (the import of the emulator aside).
import { GenerationFailedError, MediaGenClient, type WebhookEvent } from '@mediagen/core';
import { createWebhookHandler } from '@mediagen/core/server';
import { afterAll, afterEach, expect, it } from 'vitest';
import { createEmulator } from '../src/index.js';

// src/posters.ts
async function makePoster(client: MediaGenClient, prompt: string): Promise<Uint8Array> {
  const generation = await client.generations.run({ model: 'image-fast', prompt, aspect_ratio: '16:9' });
  return client.generations.download(generation);
}

const KEY = 'svc_live_test';
const SECRET = 'whsec_test';
const events: WebhookEvent[] = [];
const client = new MediaGenClient({
  apiKey: KEY,
  baseUrl: 'http://emulator.mediagen.test',
  fetch: (input, init) => emu.fetch(input, init),
});
// The app's webhook receiver; publishing to the client lets run() finish on the webhook.
const receiver = createWebhookHandler({ secrets: SECRET, client, onEvent: (event) => void events.push(event) });
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
  webhookFetch: receiver,
});

afterEach(async () => {
  events.length = 0;
  await emu.reset();
});
afterAll(() => emu.close());

it('makes a PNG poster and pays for one generation', async () => {
  const png = await makePoster(client, 'a lighthouse');
  expect([...png.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]); // "PNG"
  const { balance, ledger } = await emu.accounts.get('acct_test');
  expect(ledger.filter((row) => row.type === 'reserve')).toHaveLength(1);
  expect(balance).toBe(96);
});

it('the webhook handler gets the signed generation.completed', async () => {
  const done = await client.generations.run({ model: 'image-fast', prompt: 'a fox' });
  const deliveries = await emu.deliveries.settled(done.generation_id);
  expect(deliveries.map((d) => [d.status, d.outcome])).toEqual([[200, 'delivered']]);
  expect(events.map((e) => [e.type, e.data.generation_id])).toEqual([['generation.completed', done.generation_id]]);
});

it('a failed generation throws GenerationFailedError and is refunded', async () => {
  const error = await makePoster(client, 'x [[fail:model_unavailable]]').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(GenerationFailedError);
  expect((error as GenerationFailedError).retryable).toBe(true);
  expect((await emu.accounts.get('acct_test')).balance).toBe(100);
});
