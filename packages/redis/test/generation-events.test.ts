import type { AddressInfo } from 'node:net';
import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { mediagenWebhook } from '@mediagen/express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisDedupeStore, RedisGenerationEvents } from '../src/index';
import { cleanUp, connection, REDIS_URL, uniquePrefix } from './support/redis';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await cleanUp();
});

const KEY = 'svc_live_events';
const SECRET = 'whsec_events';

/** An instance of an app: its client (counting its status reads) and its events on Redis. */
async function instance(prefix: string, baseUrl: string, events = new RedisGenerationEvents({ redis: connection(), prefix })) {
  closers.push(() => events.close());
  await events.ready();
  const reads: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if ((init?.method ?? 'GET') === 'GET' && url.includes('/generations/')) reads.push(url);
    return globalThis.fetch(input, init);
  };
  const client = new MediaGenClient({ apiKey: KEY, baseUrl, events, fetch });
  return { client, events, reads };
}

describe('RedisGenerationEvents', () => {
  it("resolves a wait on one instance with the webhook another instance's receiver verified", async () => {
    const prefix = uniquePrefix('events');
    // Instance B receives the webhooks: its receiver publishes each verified event to B's events
    // (the receiver's `events` option, as apps wire it). Instance A only waits.
    const eventsB = new RedisGenerationEvents({ redis: connection(), prefix });
    const app = express();
    const handled: string[] = [];
    app.post(
      '/webhooks',
      mediagenWebhook({
        secrets: SECRET,
        dedupe: new RedisDedupeStore({ redis: connection(), prefix }),
        events: eventsB,
        onEvent: async (event) => {
          handled.push(event.data.generation_id);
        },
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    closers.push(() => new Promise((r) => server.close(r)));
    // `[[hold]]` keeps the image in flight until released: the wait's first read finds it running.
    const emulator: RunningEmulator = await startEmulator({
      port: 0,
      config: {
        timeScale: 0.01,
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
    const a = await instance(prefix, emulator.url);
    await instance(prefix, emulator.url, eventsB);
    // The wait reads once, then its next poll (and its deadline) are an hour away, past this
    // test's timeout: only the event, heard through Redis, can end it while the test runs.
    const HOUR = 3_600_000;

    const { generation_id: id } = await a.client.generations.create({ model: 'image-fast', prompt: 'across instances [[hold]]' });
    let heard = false;
    const off = a.events.subscribe(id, () => (heard = true)); // A hears it only from Redis
    a.reads.length = 0;
    const statuses: string[] = [];
    const waiting = a.client.generations.wait(id, {
      intervalMs: HOUR,
      timeoutMs: HOUR,
      onUpdate: (g) => statuses.push(g.status),
    });
    // The first read has found it running; only now may it finish.
    await expect.poll(() => statuses.length).toBe(1);
    expect(await emulator.faults.release()).toBe(1);
    const generation = await waiting;
    off();
    expect(generation.status).toBe('completed');
    expect(generation.output_url).toContain(emulator.url); // read once after the event: fresh links
    // The first read found it running; the wait then ended on the event, with one read for
    // fresh links: two reads, and the event heard.
    expect(statuses[0]).toMatch(/^(pending|processing)$/);
    expect(statuses.at(-1)).toBe('completed');
    expect(a.reads).toHaveLength(2);
    expect(heard).toBe(true); // through pub/sub: A has no receiver
    // B publishes the event before its own handler runs (waiters first): wait for the handler.
    await expect.poll(() => handled.includes(id)).toBe(true);
    expect(handled.filter((h) => h === id)).toHaveLength(1);
  });

  it('delivers to local waiters once (not again when the copy comes back from Redis) and to every other instance', async () => {
    const prefix = uniquePrefix('fanout');
    const otherPrefix = uniquePrefix('other-account');
    const [a, b, c] = [
      new RedisGenerationEvents({ redis: connection(), prefix }),
      new RedisGenerationEvents({ redis: REDIS_URL, prefix }),
      new RedisGenerationEvents({ redis: connection(), prefix: otherPrefix }),
    ];
    closers.push(
      () => a.close(),
      () => b.close(),
      () => c.close(),
    );
    const heard: Record<string, WebhookEvent[]> = { a: [], b: [], c: [] };
    const ids = (who: string) => heard[who]!.map((e) => e.deliveryId);
    const offA = a.subscribe('g-1', (e) => heard.a!.push(e));
    b.subscribe('g-1', (e) => heard.b!.push(e));
    c.subscribe('g-1', (e) => heard.c!.push(e));
    await Promise.all([a.ready(), b.ready(), c.ready()]);
    const event = {
      type: 'generation.completed',
      deliveryId: 'd-1',
      data: { generation_id: 'g-1', status: 'completed', output_url: 'https://cdn.test/g-1.png' },
    } as WebhookEvent;
    await a.publish(event);
    await expect.poll(() => heard.b!.length).toBeGreaterThan(0);
    // A second event, published by b, proves a's copy of the first has come back and been dropped by then.
    await b.publish({ ...event, deliveryId: 'd-2' });
    await expect.poll(() => heard.a!.length).toBeGreaterThanOrEqual(2);
    expect(ids('a')).toEqual(['d-1', 'd-2']);
    expect(ids('b')).toEqual(['d-1', 'd-2']);
    // Another prefix (account) hears nothing: a message on its own channel, sent after the two
    // above, arrives after them on its connection, and is all it heard.
    const raw = connection();
    await raw.publish(`${otherPrefix}generation-events`, JSON.stringify({ origin: 'raw', event: { ...event, deliveryId: 'd-c' } }));
    await expect.poll(() => heard.c!.length).toBeGreaterThan(0);
    expect(ids('c')).toEqual(['d-c']);
    offA();
    // A listener a keeps shows when a has heard the third event, which the removed one must not.
    const stillA: WebhookEvent[] = [];
    a.subscribe('g-1', (e) => stillA.push(e));
    await b.publish({ ...event, deliveryId: 'd-3' });
    await expect.poll(() => stillA.length).toBeGreaterThan(0);
    expect(stillA.map((e) => e.deliveryId)).toEqual(['d-3']);
    expect(ids('a')).toEqual(['d-1', 'd-2']); // unsubscribed
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
    // Redis delivers a channel's messages in order: once the good one is heard, all the bad ones were read.
    await expect.poll(() => heard.length).toBeGreaterThan(0);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ type: 'generation.completed', data: { generation_id: 'g-1' } });
  });
});
