import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MediaGenClient } from '../src/index';
import { createNodeHandler } from '../src/node';
import { createMediaGenHandler, type MediaGenHandlerOptions } from '../src/server';
import { memorySource } from './support/memory-source';
import { dataOf, sseReader } from './support/sse';

/**
 * What one user can make a handler hold and cost: streams per user, the service's status reads
 * per reconnect, and a stream whose `Last-Event-ID` claims more than happened. A real `node:http`
 * server in front of the handler, the real emulator behind it; a prompt with `[[hold]]` keeps a
 * generation `processing` until the test releases it, so nothing here hangs on render time.
 */
const KEY = 'svc_live_stream_bounds';
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.01, accounts: [{ id: 'acct_bounds', tier: 'ultimate', balance: 100_000, keys: [{ key: KEY }] }] },
  });
});
afterAll(() => emulator?.close());

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  // Held generations of one test never reach the next.
  await emulator.faults.release(1_000);
});

async function serve(extra: Partial<MediaGenHandlerOptions> = {}) {
  let reads = 0;
  /** Counts the service's status reads (GET /api/v1/generations/:id), whoever makes them. */
  const counting: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if ((init?.method ?? 'GET') === 'GET' && /^\/api\/v1\/generations\/[^/]+$/.test(url.pathname)) reads += 1;
    return fetch(input, init);
  };
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0, fetch: counting });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (req) => req.headers.get('x-user') ?? undefined,
    source: memorySource().source,
    onError: () => {},
    ...extra,
  });
  const handle = createNodeHandler(handler);
  const server = createServer((req, res) => void handle(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** A generation of `user` that stays `processing` until the test releases it. */
  const held = async (user: string) => {
    const before = (await emulator.faults.held()).length;
    const res = await fetch(`${origin}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': user },
      body: JSON.stringify({ model: 'image-fast', prompt: '[[hold]] a lighthouse' }),
    });
    expect(res.status).toBe(202);
    await emulator.faults.held({ min: before + 1 });
    return ((await res.json()) as { generation_id: string }).generation_id;
  };
  /** A stream (or its refusal) as a browser opens it, on its own connection; `cut()` hangs up. */
  const stream = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: ReadableStream<Uint8Array>; cut: () => void }>(
      (resolve, reject) => {
        const req = request(`${origin}/api${path}`, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
          res.on('error', () => {});
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: Readable.toWeb(res) as ReadableStream<Uint8Array>,
            cut: () => req.destroy(),
          });
        });
        req.on('error', reject);
        req.end();
      },
    );
  return { handler, held, stream, reads: () => reads };
}

/** Resolves once `condition` holds, checked after each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('streams per user (stream.maxStreamsPerUser, default 8)', () => {
  it('refuses the 9th stream of one user, feed or generation, with 429 RATE_LIMIT; other users and a closed stream free it', async () => {
    const app = await serve();
    const id = await app.held('ada');
    const open = [];
    for (let i = 0; i < 6; i++) open.push(await app.stream(`/generations/${id}/events`, { 'x-user': 'ada' }));
    for (let i = 0; i < 2; i++) open.push(await app.stream('/generations/events', { 'x-user': 'ada' }));
    expect(open.map((s) => s.status)).toEqual(Array(8).fill(200));

    for (const path of [`/generations/${id}/events`, '/generations/events']) {
      const refused = await app.stream(path, { 'x-user': 'ada' });
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(refused.headers['retry-after']).toBe('5');
      const body = await new Response(refused.body).json();
      expect(body).toEqual({
        error: 'RATE_LIMIT',
        message: expect.stringContaining('8 open event streams'),
        next: expect.any(String),
        request_id: null,
      });
    }
    expect(app.handler.openStreams).toBe(8);

    const bobs = await app.held('bob');
    const bob = await app.stream(`/generations/${bobs}/events`, { 'x-user': 'bob' });
    expect(bob.status).toBe(200);

    open[0]!.cut();
    await until(() => app.handler.openStreams === 8);
    const again = await app.stream(`/generations/${id}/events`, { 'x-user': 'ada' });
    expect(again.status).toBe(200);
    for (const s of [...open, bob, again]) s.cut();
    await until(() => app.handler.openStreams === 0);
  });

  it('follows the option, and leaves streams with no owner to maxStreams alone (they share one scope: a cap would be everyone)', async () => {
    const capped = await serve({ stream: { maxStreamsPerUser: 2 } });
    const id = await capped.held('ada');
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await capped.stream(`/generations/${id}/events`, { 'x-user': 'ada' })).status);
    expect(statuses).toEqual([200, 200, 429]);

    const open = await serve({ identify: undefined, allowAnonymous: true, source: undefined, authorize: () => true });
    const anyone = await open.held('nobody');
    const anonymous = [];
    for (let i = 0; i < 10; i++) anonymous.push(await open.stream(`/generations/${anyone}/events`));
    expect(anonymous.map((s) => s.status)).toEqual(Array(10).fill(200));
  });
});

describe('status reads per reconnect', () => {
  it('300 reconnects to one generation cost the service a bounded number of reads, not two each', async () => {
    // A frozen clock: every reconnect falls inside the reuse window, so the count cannot depend
    // on how fast this machine reconnects (a real one reads again each 2 s, as a poll would).
    const app = await serve({ stream: { now: () => 0 } });
    const id = await app.held('ada');
    const before = app.reads();
    for (let i = 0; i < 300; i++) {
      const s = await app.stream(`/generations/${id}/events`, { 'x-user': 'ada', ...(i > 0 && { 'last-event-id': '2' }) });
      expect(s.status).toBe(200);
      const events = sseReader(s.body);
      if (i === 0) expect(dataOf(await events.until(() => true)).map((g) => g.generation_id)).toEqual([id]);
      s.cut();
      await until(() => app.handler.openStreams === 0);
    }
    // One read, and one more should a follow outlive a reconnect long enough to poll.
    expect(app.reads() - before).toBeLessThanOrEqual(3);
  });

  it('300 streams opened at once share one read', async () => {
    // 50 users, 6 streams each (under the per-user cap); `authorize` lets each of them read it.
    const app = await serve({ stream: { now: () => 0 }, source: undefined, authorize: () => true });
    const id = await app.held('ada');
    const before = app.reads();
    const users = Array.from({ length: 300 }, (_, i) => `user-${i % 50}`);
    const opened = await Promise.all(users.map((user) => app.stream(`/generations/${id}/events`, { 'x-user': user })));
    expect(opened.filter((s) => s.status === 200)).toHaveLength(300);
    expect(app.reads() - before).toBeLessThanOrEqual(2);
    for (const s of opened) s.cut();
    await until(() => app.handler.openStreams === 0);
  });
});

describe('Last-Event-ID is a claim, not a fact', () => {
  it.each(['3', '99'])(
    'a stream opened with Last-Event-ID: %s on a running generation still sends the terminal state, then ends',
    async (claim) => {
      const app = await serve();
      const id = await app.held('ada');
      const s = await app.stream(`/generations/${id}/events`, { 'x-user': 'ada', 'last-event-id': claim });
      expect(s.status).toBe(200);
      const events = sseReader(s.body);
      await emulator.faults.release(1);
      // The generation ends on the service; the stream's follow reads it there (no webhook here).
      const rest = await events.rest();
      expect(dataOf(rest).map((g) => g.status)).toEqual(['completed']);
      expect(rest.filter((e) => e.data).at(-1)!.id).toBe('3');
      await until(() => app.handler.openStreams === 0);
    },
  );
});
