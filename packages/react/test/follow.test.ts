import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Generation } from '@mediagen/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followGeneration, type GenerationRequestError, type Transport } from '../src/index';
import { type App, startApp, submitAs } from './support/app';

/** followGeneration (the engine of useGeneration) in Node against a real app and the emulator. */
function follow(app: App, id: string, uid: string, extra: { stallMs?: number; streamUrl?: string } = {}) {
  const updates: Generation[] = [];
  const transports: Transport[] = [];
  let refusal: GenerationRequestError | undefined;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const withCookie: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as object), cookie: `uid=${uid}` } });
  const stop = followGeneration(
    {
      streamUrl: extra.streamUrl ?? `${app.origin}/api/generations/${id}/events`,
      statusUrl: `${app.origin}/api/generations/${id}`,
      intervalMs: 20,
      stallMs: extra.stallMs ?? 60_000,
      maxReconnects: 3,
      waitFirst: false,
      fetch: withCookie,
    },
    {
      update(generation) {
        updates.push(generation);
        if (generation.status === 'completed' || generation.status === 'failed') settle();
      },
      refused(error) {
        refusal = error;
        settle();
      },
      transport: (t) => transports.push(t),
    },
  );
  const until = async (predicate: () => boolean) => {
    while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  return { updates, transports, settled, stop, until, refusal: () => refusal };
}

describe('followGeneration: the stream while it serves', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  it("follows by the stream alone: each state, the webhook's terminal one, and not one status read", async () => {
    const id = await submitAs(app, 'ada');
    const f = follow(app, id, 'ada');
    await f.until(() => f.updates.length === 1);
    expect(f.updates.map((g) => g.status)).toEqual(['pending']);
    await app.complete(id);
    await f.settled;
    expect(f.updates.map((g) => g.status)).toEqual(['pending', 'completed']);
    expect(f.transports).toEqual(['stream']);
    expect(app.statusReads(id)).toBe(0);
  });

  it('reopens a cut stream with Last-Event-ID and gets the terminal state', async () => {
    const id = await submitAs(app, 'ada');
    const f = follow(app, id, 'ada');
    await f.until(() => f.updates.length === 1 && app.openStreams() > 0);
    expect(app.cutStreams()).toBeGreaterThan(0);
    // The reconnect answered: the handler follows the generation again, so the webhook cannot
    // come between its fresh status read and its watch. (Its arrival alone does not say that.)
    await f.until(() => app.answeredStreams(id) >= 2);
    await app.complete(id);
    await f.settled;
    expect(f.updates.map((g) => g.status)).toEqual(['pending', 'completed']);
    expect(app.streamRequests(id).map((r) => r.lastEventId)).toEqual([undefined, '1']);
    expect(app.statusReads(id)).toBe(0);
  });

  it("stops at a refusal: another user's id is 404 NOT_FOUND as a value, and nothing is polled", async () => {
    const id = await submitAs(app, 'ada');
    const f = follow(app, id, 'bob');
    await f.settled;
    expect(f.refusal()).toMatchObject({ code: 'NOT_FOUND', status: 404, retryable: false, next: expect.any(String) });
    expect(f.updates).toEqual([]);
    expect(app.statusReads(id)).toBe(0);
  });
});

describe('followGeneration: polling when the stream cannot serve', () => {
  let app: App;
  beforeAll(async () => {
    // Here the emulator finishes generations by itself (at a thousandth of their length).
    app = await startApp({ timeScale: 0.001 });
  });
  afterAll(() => app.close());

  it('polls to the terminal state when the stream is refused (503)', async () => {
    app.refuseStreams(true);
    try {
      const id = await submitAs(app, 'ada');
      const f = follow(app, id, 'ada');
      await f.settled;
      expect(f.updates.at(-1)?.status).toBe('completed');
      expect(f.transports).toEqual(['poll']);
      expect(app.statusReads(id)).toBeGreaterThan(0);
    } finally {
      app.refuseStreams(false);
    }
  });

  it('polls when the stream sends an event without end (a line past the parser bound), and stops reading it', async () => {
    // 4 MiB of one `data:` line, then the connection held open: only the parser's bound (1 Mi
    // characters) ends this stream; the stall fallback is a minute away.
    let closedByClient!: () => void;
    const closed = new Promise<void>((resolve) => (closedByClient = resolve));
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ');
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 64; i += 1) res.write(chunk);
      res.on('close', closedByClient);
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const id = await submitAs(app, 'ada');
      const streamUrl = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/events`;
      const f = follow(app, id, 'ada', { streamUrl });
      await f.settled;
      await closed;
      expect(f.transports).toEqual(['stream', 'poll']);
      expect(f.updates.at(-1)?.status).toBe('completed');
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });

  it('polls when the stream stalls (headers, then not a byte)', async () => {
    const silent = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const id = await submitAs(app, 'ada');
      const streamUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/events`;
      const f = follow(app, id, 'ada', { stallMs: 100, streamUrl });
      await f.settled;
      expect(f.transports).toEqual(['stream', 'poll']);
      expect(f.updates.at(-1)?.status).toBe('completed');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
