import { startEmulator } from '@mediagen/emulator';
import { describe, expect, it } from 'vitest';
import { MediaGenClient } from '../src/index';
import { createMediaGenHandler, type MediaGenHandlerOptions } from '../src/server';
import { SseConnection } from '../src/server/sse-connection';
import { completedDelivery } from './support/completion';
import { memorySource } from './support/memory-source';
import { slowEmulator } from './support/slow-emulator';
import { dataOf, sseReader } from './support/sse';

/**
 * The event streams against the real emulator. Its generations here run at a thousand times
 * their real length, so nothing finishes unless a test says so: a signed webhook posted to the
 * handler (what the service does on completion) is the only way one reaches a terminal state.
 */
const KEY = 'svc_live_streams';
const SECRET = 'whsec_streams';
const emulator = slowEmulator(KEY, 'acct_streams');

const BASE = 'http://app.test/api';

function setup(extra: Partial<MediaGenHandlerOptions> = {}) {
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
  const { source } = memorySource();
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source,
    webhook: { secrets: SECRET },
    onError: () => {},
    ...extra,
  });
  const as = (user: string | undefined, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (user) headers.set('x-user', user);
    return handler(new Request(BASE + path, { ...init, headers }));
  };
  const submit = async (user: string) => {
    const res = await as(user, '/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-fast', prompt: 'a lighthouse' }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { generation_id: string }).generation_id;
  };
  /** What the service sends when the generation completes: a signed delivery to the handler's receiver. */
  const complete = async (id: string) => {
    const res = await as(undefined, '/webhooks/mediagen', await completedDelivery(id, SECRET));
    expect(res.status).toBe(200);
  };
  const stream = async (user: string | undefined, path: string, headers: Record<string, string> = {}) => {
    const controller = new AbortController();
    const res = await as(user, path, { headers, signal: controller.signal });
    const isStream = res.headers.get('content-type')?.startsWith('text/event-stream');
    return { res, events: isStream && res.body ? sseReader(res.body) : undefined, cut: () => controller.abort() };
  };
  return { handler, client, as, submit, complete, stream };
}

describe('GET /generations/:id/events', () => {
  it('sends the current state, then each status change, and closes after the terminal one', async () => {
    const app = setup();
    const id = await app.submit('ada');
    const { res, events } = await app.stream('ada', `/generations/${id}/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = await events!.until((g) => g.generation_id === id);
    expect(dataOf(first).map((g) => g.status)).toEqual(['pending']);
    expect(first.at(-1)!.id).toBe('1');
    await app.complete(id);
    const rest = await events!.rest();
    expect(dataOf(rest).map((g) => [g.generation_id, g.status])).toEqual([[id, 'completed']]);
    expect(rest.filter((e) => e.data).at(-1)!.id).toBe('3');
    expect(app.handler.openStreams).toBe(0);
  });

  it('resumes after a cut with Last-Event-ID: nothing already seen is sent again, the next state is', async () => {
    const app = setup();
    const id = await app.submit('ada');
    const one = await app.stream('ada', `/generations/${id}/events`);
    const seen = await one.events!.until(() => true);
    const lastId = seen.filter((e) => e.data).at(-1)!.id!;
    one.cut();
    await one.events!.rest();

    // Still pending: a resume with the id seen sends nothing new, and stays open.
    const two = await app.stream('ada', `/generations/${id}/events`, { 'last-event-id': lastId });
    expect(two.res.status).toBe(200);
    await app.complete(id);
    const resumed = await two.events!.rest();
    expect(dataOf(resumed).map((g) => g.status)).toEqual(['completed']);
    expect(resumed.filter((e) => e.data).map((e) => e.id)).toEqual(['3']);
  });

  it('answers another user 404 as for an unknown id, and no user 401 USER_UNKNOWN; the feed shows them nothing of it', async () => {
    const app = setup();
    const id = await app.submit('ada');
    const bob = await app.stream('bob', `/generations/${id}/events`);
    expect(bob.res.status).toBe(404);
    expect(await bob.res.json()).toMatchObject({ error: 'NOT_FOUND' });
    for (const path of [`/generations/${id}/events`, '/generations/events']) {
      const nobody = await app.stream(undefined, path);
      expect([path, nobody.res.status]).toEqual([path, 401]);
      expect(await nobody.res.json()).toMatchObject({ error: 'USER_UNKNOWN' });
    }
    const bobFeed = await app.stream('bob', '/generations/events');
    const adaFeed = await app.stream('ada', '/generations/events');
    await adaFeed.events!.until((g) => g.generation_id === id && g.status === 'pending');
    await app.complete(id);
    await adaFeed.events!.until((g) => g.generation_id === id && g.status === 'completed');
    // Bob's own submit is the marker: whatever reached his feed before it is in what he read.
    const bobs = await app.submit('bob');
    const bobSaw = await bobFeed.events!.until((g) => g.generation_id === bobs);
    expect(dataOf(bobSaw).map((g) => g.generation_id)).toEqual([bobs]);
    adaFeed.cut();
    bobFeed.cut();
  });

  it('refuses streams past maxStreams with 503 TOO_MANY_STREAMS and Retry-After, and counts closed ones out', async () => {
    const app = setup({ stream: { maxStreams: 2 } });
    const id = await app.submit('ada');
    const a = await app.stream('ada', `/generations/${id}/events`);
    const b = await app.stream('ada', '/generations/events');
    expect([a.res.status, b.res.status, app.handler.openStreams]).toEqual([200, 200, 2]);
    const full = await app.stream('ada', `/generations/${id}/events`);
    expect(full.res.status).toBe(503);
    expect(full.res.headers.get('retry-after')).toBe('5');
    expect(await full.res.json()).toMatchObject({ error: 'TOO_MANY_STREAMS', next: expect.any(String), request_id: null });
    b.cut();
    await b.events!.rest();
    expect(app.handler.openStreams).toBe(1);
    const again = await app.stream('ada', `/generations/${id}/events`);
    expect(again.res.status).toBe(200);
    a.cut();
    again.cut();
  });

  it('sends a heartbeat comment on the injected interval', async () => {
    const ticks: (() => void)[] = [];
    const app = setup({ stream: { heartbeatMs: 15_000, setInterval: (fn) => ticks.push(fn), clearInterval: () => {} } });
    const id = await app.submit('ada');
    const { events, cut } = await app.stream('ada', `/generations/${id}/events`);
    await events!.until(() => true);
    expect(ticks).toHaveLength(1);
    ticks[0]!();
    expect(await events!.next()).toEqual({ comment: 'ping' });
    cut();
  });
});

describe('a terminal state reached while no stream is open', () => {
  it('is the first thing the reconnect sends (a fresh read), then the stream closes', async () => {
    // Here generations run at a thousandth of their length: they finish on the service by themselves.
    const fast = await startEmulator({
      port: 0,
      config: { timeScale: 0.001, accounts: [{ id: 'acct_fast', tier: 'ultimate', balance: 100_000, keys: [{ key: KEY }] }] },
    });
    try {
      const client = new MediaGenClient({ apiKey: KEY, baseUrl: fast.url, maxRetries: 0 });
      const handler = createMediaGenHandler({ client, basePath: '/api', identify: () => 'ada', authorize: () => true });
      const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'x' });
      const cut = new AbortController();
      const one = sseReader((await handler(new Request(`${BASE}/generations/${id}/events`, { signal: cut.signal }))).body!);
      const first = (await one.until(() => true)).filter((e) => e.data).at(-1)!;
      cut.abort();
      await one.rest();
      await new MediaGenClient({ apiKey: KEY, baseUrl: fast.url }).generations.wait(id, { intervalMs: 20 });
      const again = await handler(new Request(`${BASE}/generations/${id}/events`, { headers: { 'last-event-id': first.id! } }));
      // A first connection that already saw the terminal state (a loaded machine, a fast render) is
      // answered 204 on reconnect: nothing more to send, which stops a plain EventSource.
      if (JSON.parse(first.data!).status === 'completed') expect(again.status).toBe(204);
      const resumed = again.status === 204 ? [] : dataOf(await sseReader(again.body!).rest());
      const statuses = [JSON.parse(first.data!).status, ...resumed.map((g) => g.status)];
      // Whatever the first connection saw, the two together end on the terminal state, sent once.
      expect(statuses.at(-1)).toBe('completed');
      expect(statuses.filter((s) => s === 'completed')).toHaveLength(1);
    } finally {
      await fast.close();
    }
  });
});

describe('GET /generations/events (the feed)', () => {
  it("sends the user's generations, each one submitted later (by route or server action), and every status change", async () => {
    const app = setup();
    const before = await app.submit('ada');
    const feed = await app.stream('ada', '/generations/events');
    expect(feed.res.status).toBe(200);
    await feed.events!.until((g) => g.generation_id === before);
    const later = await app.submit('ada');
    await feed.events!.until((g) => g.generation_id === later && g.status === 'pending');
    const byAction = await app.handler.actions.submit({ model: 'image-fast', prompt: 'x' }, { owner: 'ada', idempotencyKey: 'k-1' });
    await feed.events!.until((g) => g.generation_id === byAction.generation_id);
    await app.complete(later);
    const done = await feed.events!.until((g) => g.status === 'completed');
    expect(dataOf(done).at(-1)!.generation_id).toBe(later);
    feed.cut();
  });

  it('is 404 without a source', async () => {
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url });
    const handler = createMediaGenHandler({ client, basePath: '/api' });
    expect(handler.route('GET', '/api/generations/events')).toBeUndefined();
    expect((await handler(new Request(`${BASE}/generations/events`))).status).toBe(404);
  });
});

describe('SseConnection (one per open stream)', () => {
  it('holds at most one event per key for a reader that does not read: the latest, never a backlog', async () => {
    const connection = new SseConnection(() => {});
    const encoder = new TextEncoder();
    for (let i = 0; i < 10_000; i++) connection.send(`gen-${i % 3}`, encoder.encode(`data: ${i}\n\n`));
    connection.end();
    const events = await sseReader(connection.response.body!).rest();
    // One chunk went into the stream's queue at once; the rest waited, replaced by each newer one.
    expect(events.map((e) => e.data)).toEqual(['0', '9998', '9999', '9997'].sort((a, b) => order(a) - order(b)));
  });
});

/** Key order of the first sends: gen-0 first queued, then gen-1, then gen-2. */
const order = (data: string) => ['0', '9997', '9998', '9999'].indexOf(data);
