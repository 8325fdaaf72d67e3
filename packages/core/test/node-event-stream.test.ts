import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { MediaGenClient, MemoryGenerationEvents, type WebhookEvent } from '../src/index';
import { createNodeHandler } from '../src/node';
import { createMediaGenHandler, type MediaGenHandlerOptions } from '../src/server';
import { completedDelivery } from './support/completion';
import { memorySource } from './support/memory-source';
import { slowEmulator } from './support/slow-emulator';
import { dataOf, sseReader } from './support/sse';

/**
 * The handler's event streams served by a real `node:http` server through `createNodeHandler`,
 * where the connection writes to the Node response itself (no Web body read), against the real
 * emulator. Generations there run at a thousand times their length: a signed webhook is what
 * ends one.
 */
const KEY = 'svc_live_node_streams';
const SECRET = 'whsec_node_streams';
const emulator = slowEmulator(KEY, 'acct_node_streams');

/** In-process events that count live subscriptions per key: a follow that is let go leaves none. */
class CountingEvents extends MemoryGenerationEvents {
  readonly live = new Map<string, number>();
  override subscribe(key: string, listener: (event: WebhookEvent) => void): () => void {
    this.live.set(key, (this.live.get(key) ?? 0) + 1);
    const unsubscribe = super.subscribe(key, listener);
    let done = false;
    return () => {
      if (!done) this.live.set(key, this.live.get(key)! - 1);
      done = true;
      unsubscribe();
    };
  }
  count(key: string): number {
    return this.live.get(key) ?? 0;
  }
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(extra: Partial<MediaGenHandlerOptions> = {}) {
  const events = new CountingEvents();
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0, events });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (req) => req.headers.get('x-user') ?? undefined,
    source: memorySource().source,
    webhook: { secrets: SECRET },
    onError: () => {},
    ...extra,
  });
  const handle = createNodeHandler(handler);
  const server = createServer((req, res) => void handle(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const submit = async (user: string) => {
    const res = await fetch(`${origin}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': user },
      body: JSON.stringify({ model: 'image-fast', prompt: 'a lighthouse' }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { generation_id: string }).generation_id;
  };
  const complete = async (id: string) => {
    const res = await fetch(`${origin}/api/webhooks/mediagen`, await completedDelivery(id, SECRET));
    expect(res.status).toBe(200);
  };
  /** A stream read as a browser's EventSource would; `cut()` hangs up. */
  const stream = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, unknown>; events: ReturnType<typeof sseReader>; cut: () => void }>(
      (resolve, reject) => {
        const req = request(`${origin}/api${path}`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
          res.on('error', () => {});
          const body = Readable.toWeb(res) as ReadableStream<Uint8Array>;
          resolve({ status: res.statusCode!, headers: res.headers, events: sseReader(body), cut: () => req.destroy() });
        });
        req.on('error', reject);
        req.end();
      },
    );
  return { handler, events, submit, complete, stream };
}

/** Resolves once `condition` holds, checked after each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('event streams through createNodeHandler', () => {
  it('sends the retry advice, the current state and the terminal one, then ends and counts the stream out', async () => {
    const app = await serve();
    const id = await app.submit('ada');
    const one = await app.stream(`/generations/${id}/events`, { 'x-user': 'ada' });
    expect(one.status).toBe(200);
    expect(one.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(await one.events.next()).toEqual({ retry: '2000' });
    const first = await one.events.until((g) => g.generation_id === id);
    expect(dataOf(first).map((g) => g.status)).toEqual(['pending']);
    expect(app.handler.openStreams).toBe(1);
    await app.complete(id);
    const rest = await one.events.rest();
    expect(dataOf(rest).map((g) => g.status)).toEqual(['completed']);
    expect(rest.filter((e) => e.data).at(-1)!.id).toBe('3');
    await until(() => app.handler.openStreams === 0);
    await until(() => app.events.count(id) === 0);
  });

  it('lets go of the follow when the browser hangs up: no stream, no subscription left', async () => {
    const app = await serve();
    const id = await app.submit('ada');
    const streams = await Promise.all([1, 2, 3].map(() => app.stream(`/generations/${id}/events`, { 'x-user': 'ada' })));
    for (const s of streams) await s.events.until((g) => g.generation_id === id);
    expect(app.handler.openStreams).toBe(3);
    // One follower for the three: its own subscription, and its wait's once its first poll is due
    // (the streams' fresh read stands for one until then).
    expect([1, 2]).toContain(app.events.count(id));
    streams[0]!.cut();
    await until(() => app.handler.openStreams === 2);
    expect([1, 2]).toContain(app.events.count(id));
    for (const s of streams.slice(1)) s.cut();
    await until(() => app.handler.openStreams === 0);
    await until(() => app.events.count(id) === 0);
  });

  it("lets go of a feed's channel and follows when the browser hangs up", async () => {
    const app = await serve();
    const id = await app.submit('ada');
    const feed = await app.stream('/generations/events', { 'x-user': 'ada' });
    await feed.events.until((g) => g.generation_id === id && g.status === 'pending');
    const later = await app.submit('ada');
    await feed.events.until((g) => g.generation_id === later);
    expect(app.events.count(id) + app.events.count(later)).toBe(4);
    feed.cut();
    await until(() => app.handler.openStreams === 0);
    await until(() => [...app.events.live.values()].every((n) => n === 0));
  });

  it('serves a stream whose response the CORS headers rebuilt around the same body', async () => {
    const app = await serve({ cors: { origins: ['https://app.example'] } });
    const id = await app.submit('ada');
    const one = await app.stream(`/generations/${id}/events`, { 'x-user': 'ada', origin: 'https://app.example' });
    expect(one.headers['access-control-allow-origin']).toBe('https://app.example');
    await one.events.until((g) => g.generation_id === id);
    await app.complete(id);
    expect(dataOf(await one.events.rest()).map((g) => g.status)).toEqual(['completed']);
    await until(() => app.handler.openStreams === 0);
  });
});
