import { afterEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  type GenerationEvents,
  GenerationFailedError,
  MediaGenClient,
  MemoryGenerationEvents,
  type WebhookEvent,
} from '../src/index';
import { startFakeService } from './support/fake-service';
import { imageFast } from './support/models';
import { startReceiver, terminalPayload } from './support/receiver';

type Closable = { close(): Promise<void> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/**
 * `client.events` that counts live subscriptions, to prove every exit removes its own. It extends
 * `MemoryGenerationEvents`, as a custom implementation does: the inherited `listen` (what
 * `wait()` calls) subscribes through this `subscribe`.
 */
class CountingEvents extends MemoryGenerationEvents {
  live = 0;
  override subscribe(id: string, listener: (event: WebhookEvent) => void): () => void {
    this.live++;
    const off = super.subscribe(id, listener);
    let done = false;
    return () => {
      if (!done) this.live--;
      done = true;
      off();
    };
  }
}

async function setup(fetchImpl?: typeof fetch) {
  const service = await startFakeService({ models: [imageFast] });
  open.push(service);
  const events = new CountingEvents();
  const client = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 0, events, fetch: fetchImpl });
  const receiver = await startReceiver({ events });
  open.push(receiver);
  const statusReads = () => service.seen.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/generations/')).length;
  /** Resolves once the service has answered `n` status reads. */
  const readsReach = async (n: number) => {
    while (statusReads() < n) await new Promise((r) => setTimeout(r, 5));
  };
  return { service, client, events, receiver, statusReads, readsReach };
}

// A poll interval no test can reach: a wait that ends did so on the webhook.
const NEVER = 10 * 60_000;

describe('wait() races the webhook', () => {
  it('resolves on the verified webhook, then reads the generation once for fresh links', async () => {
    const { service, client, events, receiver, statusReads, readsReach } = await setup();
    const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'a fox' });
    const updates: string[] = [];
    const waiting = client.generations.wait(id, { intervalMs: NEVER, onUpdate: (g) => updates.push(g.status) });
    await readsReach(1); // the first read saw it pending; the next poll is minutes away
    service.finish(id);
    expect(await receiver.deliver('generation.completed', terminalPayload(id))).toBe(200);
    const generation = await waiting;
    expect(generation.status).toBe('completed');
    expect(generation.request_id).toMatch(/^req_/); // the read after the event, not the event itself
    expect(generation.output_urls?.[0]).toContain(service.url); // the service's freshly signed link
    expect(statusReads()).toBe(2);
    expect(updates).toEqual(['pending', 'completed']);
    expect(events.live).toBe(0);
  });

  it('run() resolves on the webhook too, and throws GenerationFailedError for a failed one', async () => {
    const { service, client, receiver, readsReach } = await setup();
    const running = client.generations.run({ model: 'image-fast', prompt: 'x' }, { intervalMs: NEVER });
    const assertion = expect(running).rejects.toBeInstanceOf(GenerationFailedError);
    while (service.gens.size === 0) await new Promise((r) => setTimeout(r, 5));
    const [id] = [...service.gens.keys()];
    service.finish(id!, 'failed');
    expect(await receiver.deliver('generation.failed', terminalPayload(id!, 'failed'))).toBe(200);
    await assertion;
    await readsReach(1);
  });

  it('builds the generation from the signed event when the read after it fails', async () => {
    let failReads = false;
    const flaky: typeof fetch = (input, init) => {
      if (failReads && String(input).includes('/api/v1/generations/')) return Promise.reject(new TypeError('fetch failed'));
      return globalThis.fetch(input, init);
    };
    const { client, events, receiver, statusReads, readsReach } = await setup(flaky);
    const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'a fox' });
    const waiting = client.generations.wait(id, { intervalMs: NEVER });
    await readsReach(1);
    failReads = true;
    await receiver.deliver('generation.completed', terminalPayload(id));
    const generation = await waiting;
    expect(generation).toMatchObject({
      generation_id: id,
      status: 'completed',
      credits_used: 4,
      duration_ms: 1_500,
      completed_at: '2026-01-01T00:00:01.500Z',
      created_at: '2026-01-01T00:00:00.000Z', // completed_at minus duration_ms
      request_id: '',
    });
    expect(generation.output_urls).toEqual([terminalPayload(id).output_url]);
    expect(generation.error).toBeUndefined();
    expect(statusReads()).toBe(1); // the failed read never reached the service
    expect(events.live).toBe(0);
  });

  it('ignores events for other generations and non-terminal event types', async () => {
    const { client, events, readsReach } = await setup();
    const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'a fox' });
    const waiting = client.generations.wait(id, { intervalMs: NEVER });
    await readsReach(1);
    events.publish({ type: 'generation.completed', deliveryId: 'd1', data: terminalPayload('someone-else') } as WebhookEvent);
    events.publish({
      type: 'generation.progress',
      deliveryId: 'd2',
      data: { generation_id: id, status: 'processing' },
    } as unknown as WebhookEvent);
    // Then its own terminal event. The first event a wait hears is the one it ends on: had either
    // above counted, the wait would end with another id or a status that is not terminal. (The
    // service still says pending, so the generation comes from the event the wait heard.)
    events.publish({ type: 'generation.completed', deliveryId: 'd3', data: terminalPayload(id) } as WebhookEvent);
    expect(await waiting).toMatchObject({ generation_id: id, status: 'completed', request_id: '' });
    expect(events.live).toBe(0);
  });

  it('honours the AbortSignal while waiting for either, and unsubscribes', async () => {
    const { client, events, readsReach } = await setup();
    const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'a fox' });
    const controller = new AbortController();
    const waiting = client.generations.wait(id, { intervalMs: NEVER, signal: controller.signal });
    await readsReach(1);
    expect(events.live).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect(events.live).toBe(0);
  });

  it('keeps polling when subscribing fails', async () => {
    const { service } = await setup();
    const broken: GenerationEvents = new (class extends MemoryGenerationEvents {
      override subscribe(): () => void {
        throw new Error('no subscriber connection');
      }
    })();
    const client = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 0, events: broken });
    const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'a fox' });
    service.finish(id);
    expect((await client.generations.wait(id, { intervalMs: 10 })).status).toBe('completed');
  });
});

describe('events are installed by the receiver, not shipped by default', () => {
  it('a client with no events and no receiver polls, and has none', async () => {
    const service = await startFakeService({ models: [imageFast] });
    open.push(service);
    const client = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 0 });
    expect(client.events).toBeUndefined();
    const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'a fox' });
    service.finish(id);
    expect((await client.generations.wait(id, { intervalMs: 10 })).status).toBe('completed');
    expect(client.events).toBeUndefined();
  });

  it('a receiver given the client installs in-process events, and wait() resolves on its webhook', async () => {
    const service = await startFakeService({ models: [imageFast] });
    open.push(service);
    const client = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 0 });
    const receiver = await startReceiver({ client });
    open.push(receiver);
    expect(client.events).toBeInstanceOf(MemoryGenerationEvents);
    const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'a fox' });
    const waiting = client.generations.wait(id, { intervalMs: NEVER });
    while (!service.seen.some((r) => r.method === 'GET' && r.path.startsWith('/api/v1/generations/'))) {
      await new Promise((r) => setTimeout(r, 5));
    }
    service.finish(id);
    expect(await receiver.deliver('generation.completed', terminalPayload(id))).toBe(200);
    expect((await waiting).status).toBe('completed');
  });

  it('a receiver given a client that has events keeps them', async () => {
    const service = await startFakeService({ models: [imageFast] });
    open.push(service);
    const events = new CountingEvents();
    const client = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, events });
    const receiver = await startReceiver({ client });
    open.push(receiver);
    expect(client.events).toBe(events);
  });
});
