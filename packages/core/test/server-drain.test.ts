import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MediaGenClient } from '../src/index';
import { createNodeHandler } from '../src/node';
import { createMediaGenHandler } from '../src/server';
import { memorySource } from './support/memory-source';
import { sseReader } from './support/sse';

/**
 * `handler.drain()`, the graceful shutdown a balanced fleet needs (issue 36): the instance leaves
 * the balancer (health 503), takes no new stream (503 + Connection: close, which a balancer
 * retries elsewhere), lets the streams it holds end with their terminal event, then resolves.
 * Ordered by the emulator's `[[hold]]` generations, never by a timer.
 */
const KEY = 'svc_live_drain';
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.01, accounts: [{ id: 'acct_drain', tier: 'ultimate', balance: 100_000, keys: [{ key: KEY }] }] },
  });
});
afterAll(() => emulator?.close());

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await emulator.faults.release(1_000);
});

async function serve() {
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (req) => req.headers.get('x-user') ?? undefined,
    source: memorySource().source,
    onError: () => {},
  });
  const handle = createNodeHandler(handler);
  const server = createServer((req, res) => void handle(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const held = async () => {
    const before = (await emulator.faults.held()).length;
    const res = await fetch(`${origin}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': 'ada' },
      body: JSON.stringify({ model: 'image-fast', prompt: '[[hold]] a lighthouse' }),
    });
    expect(res.status).toBe(202);
    await emulator.faults.held({ min: before + 1 });
    return ((await res.json()) as { generation_id: string }).generation_id;
  };
  const stream = (path: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: ReadableStream<Uint8Array> }>((resolve, reject) => {
      const req = request(`${origin}/api${path}`, { agent: false, headers: { accept: 'text/event-stream', 'x-user': 'ada' } }, (res) => {
        res.on('error', () => {});
        resolve({ status: res.statusCode!, headers: res.headers, body: Readable.toWeb(res) as ReadableStream<Uint8Array> });
      });
      req.on('error', reject);
      req.end();
    });
  return { handler, origin, held, stream };
}

describe('handler.drain()', () => {
  it('leaves the balancer, refuses new streams, lets the held one end with its terminal event, then resolves', async () => {
    const app = await serve();
    const id = await app.held();
    const open = await app.stream(`/generations/${id}/events`);
    expect(open.status).toBe(200);
    const events = sseReader(open.body);
    expect((await events.next())?.retry).toBe('2000');
    expect(['pending', 'processing']).toContain(JSON.parse((await events.next())!.data!).status);

    let drained = false;
    const draining = app.handler.drain({ timeoutMs: 60_000 }).then((result) => {
      drained = true;
      return result;
    });

    const health = await fetch(`${app.origin}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ ok: false, draining: true, problems: [] });

    const refused = await app.stream(`/generations/${id}/events`);
    expect(refused.status).toBe(503);
    expect(refused.headers.connection).toBe('close');
    expect(await new Response(refused.body).json()).toMatchObject({
      error: 'TOO_MANY_STREAMS',
      message: expect.stringContaining('shutting down'),
    });
    // Still held: the open stream keeps the drain from resolving.
    expect(drained).toBe(false);
    expect(app.handler.openStreams).toBe(1);

    await emulator.faults.release();
    let last: string | undefined;
    for (let event = await events.next(); event; event = await events.next()) if (event.data) last = event.data;
    expect(JSON.parse(last!).status).toBe('completed');
    expect(await draining).toEqual({ streamsEnded: 0, requestsLeft: 0 });
  });

  it('ends the streams still open at its deadline (a feed never ends by itself), so their browsers reconnect elsewhere', async () => {
    const app = await serve();
    const feed = await app.stream('/generations/events');
    expect(feed.status).toBe(200);
    const result = await app.handler.drain({ timeoutMs: 0 });
    expect(result).toEqual({ streamsEnded: 1, requestsLeft: 0 });
    // The body ends (a browser's EventSource then reconnects).
    await new Response(feed.body).text();
    expect(app.handler.openStreams).toBe(0);
  });

  it('resolves at once with nothing open', async () => {
    const app = await serve();
    expect(await app.handler.drain()).toEqual({ streamsEnded: 0, requestsLeft: 0 });
  });
});
