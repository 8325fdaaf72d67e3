import type { AddressInfo } from 'node:net';
import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { mediagenWebhook } from '@mediagen/express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisDedupeStore, RedisGenerationEvents } from '../src/index';
import { closeAll, connection, REDIS_URL, uniquePrefix } from './support/redis';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await closeAll();
});

const KEY = 'svc_live_events';
const SECRET = 'whsec_events';
// A poll interval no test reaches: a wait that ends did so on the webhook.
const NEVER = 10 * 60_000;

/** An instance of an app: its client, its events on Redis, and (for one of them) the webhook receiver. */
async function instance(prefix: string, baseUrl: () => string) {
  const events = new RedisGenerationEvents({ redis: connection(), prefix });
  closers.push(() => events.close());
  await events.ready();
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: baseUrl(), events });
  return { client, events };
}

describe('RedisGenerationEvents', () => {
  it("resolves a wait on one instance with the webhook another instance's receiver verified", async () => {
    const prefix = uniquePrefix('events');
    // Instance B receives the webhooks (its receiver publishes to its events); instance A only waits.
    const app = express();
    let receiverEvents: RedisGenerationEvents | undefined;
    const handled: string[] = [];
    app.post(
      '/webhooks',
      mediagenWebhook({
        secrets: SECRET,
        dedupe: new RedisDedupeStore({ redis: connection(), prefix }),
        onEvent: async (event) => {
          handled.push(event.data.generation_id);
          await receiverEvents!.publish(event);
        },
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    closers.push(() => new Promise((r) => server.close(r)));
    const emulator: RunningEmulator = await startEmulator({
      port: 0,
      config: {
        timeScale: 0.02,
        accounts: [
          {
            id: 'acct_events',
            tier: 'pro',
            balance: 15_000,
            keys: [{ key: KEY }],
            webhooks: [{ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, secret: SECRET, enabled: true }],
          },
        ],
      },
    });
    closers.push(() => emulator.close());
    const a = await instance(prefix, () => emulator.url);
    const b = await instance(prefix, () => emulator.url);
    receiverEvents = b.events;

    const { generation_id: id } = await a.client.generations.create({ model: 'image-fast', prompt: 'across instances' });
    const statuses: string[] = [];
    const generation = await a.client.generations.wait(id, {
      intervalMs: NEVER,
      timeoutMs: 20_000,
      onUpdate: (g) => statuses.push(g.status),
    });
    expect(generation.status).toBe('completed');
    expect(generation.output_url).toContain(emulator.url); // read once after the event: fresh links
    // Two reads: the first (pending, or processing on a loaded machine), then one after the event.
    expect(statuses).toHaveLength(2);
    expect(statuses[0]).toMatch(/^(pending|processing)$/);
    expect(statuses[1]).toBe('completed');
    expect(handled).toEqual([id]);
  });

  it('delivers to local waiters once (not again when the copy comes back from Redis) and to every other instance', async () => {
    const prefix = uniquePrefix('fanout');
    const [a, b, c] = [
      new RedisGenerationEvents({ redis: connection(), prefix }),
      new RedisGenerationEvents({ redis: REDIS_URL, prefix }),
      new RedisGenerationEvents({ redis: connection(), prefix: uniquePrefix('other-account') }),
    ];
    closers.push(
      () => a.close(),
      () => b.close(),
      () => c.close(),
    );
    const heard: Record<string, WebhookEvent[]> = { a: [], b: [], c: [] };
    const offA = a.subscribe('g-1', (e) => heard.a!.push(e));
    b.subscribe('g-1', (e) => heard.b!.push(e));
    c.subscribe('g-1', (e) => heard.c!.push(e));
    await Promise.all([a.ready(), b.ready(), c.ready()]);
    const event = { type: 'generation.completed', deliveryId: 'd-1', data: { generation_id: 'g-1', status: 'completed' } } as WebhookEvent;
    await a.publish(event);
    for (let i = 0; i < 200 && heard.b!.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    // A second event, published by b, proves a's copy of the first has come back and been dropped by then.
    await b.publish({ ...event, deliveryId: 'd-2' });
    for (let i = 0; i < 200 && heard.a!.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(heard.a!.map((e) => e.deliveryId)).toEqual(['d-1', 'd-2']);
    expect(heard.b!.map((e) => e.deliveryId)).toEqual(['d-1', 'd-2']);
    expect(heard.c).toEqual([]); // another prefix (account) hears nothing
    offA();
    await b.publish({ ...event, deliveryId: 'd-3' });
    for (let i = 0; i < 200 && heard.b!.length < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(heard.a!.map((e) => e.deliveryId)).toEqual(['d-1', 'd-2']); // unsubscribed
  });

  it('ignores foreign and malformed messages on its channel', async () => {
    const prefix = uniquePrefix('garbage');
    const events = new RedisGenerationEvents({ redis: connection(), prefix, onError: () => {} });
    closers.push(() => events.close());
    const heard: WebhookEvent[] = [];
    events.subscribe('g-1', (e) => heard.push(e));
    await events.ready();
    const raw = connection();
    const channel = `${prefix}generation-events`;
    for (const message of [
      'not json',
      '{}',
      '{"event":{"type":1}}',
      'x'.repeat(100_000),
      JSON.stringify({ event: { type: 't', data: {} } }),
    ]) {
      await raw.publish(channel, message);
    }
    await raw.publish(
      channel,
      JSON.stringify({ origin: 'other', event: { type: 'generation.completed', data: { generation_id: 'g-1' } } }),
    );
    for (let i = 0; i < 200 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(heard).toHaveLength(1);
  });
});
