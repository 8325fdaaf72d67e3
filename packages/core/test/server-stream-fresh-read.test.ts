import { describe, expect, it } from 'vitest';
import { MediaGenClient } from '../src/index';
import { createMediaGenHandler } from '../src/server';
import { completedDelivery } from './support/completion';
import { memorySource } from './support/memory-source';
import { slowEmulator } from './support/slow-emulator';
import { dataOf, sseReader } from './support/sse';

/**
 * A stream's first step is a fresh status read; only once it answers does the stream watch for
 * updates. A terminal webhook that arrives while that read is in flight must still reach the
 * stream. The order is forced, not raced: the handler's client reads through a fetch that holds
 * the read until the test has delivered the webhook. The emulator runs generations at a thousand
 * times their length, so the service itself says `pending` throughout: only the webhook can
 * tell the stream the generation is done.
 */
const KEY = 'svc_live_fresh_read';
const SECRET = 'whsec_fresh_read';
const BASE = 'http://app.test/api';
const emulator = slowEmulator(KEY, 'acct_fresh');

/** A fetch that can hold the next status read of one generation until the test releases it. */
function gatedFetch() {
  let gate: { id: string; started: () => void; released: Promise<void> } | undefined;
  const gated: typeof fetch = async (input, init) => {
    const armed = gate;
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (armed && (init?.method ?? 'GET') === 'GET' && url.pathname === `/api/v1/generations/${armed.id}`) {
      gate = undefined;
      armed.started();
      await armed.released;
    }
    return fetch(input, init);
  };
  return {
    fetch: gated,
    /** Holds the next read of `id`: `started` resolves once it is in flight, `release` lets it through. */
    hold(id: string) {
      let started!: () => void;
      let release!: () => void;
      const inFlight = new Promise<void>((resolve) => (started = resolve));
      gate = { id, started, released: new Promise<void>((resolve) => (release = resolve)) };
      return { inFlight, release };
    },
  };
}

function setup() {
  const gate = gatedFetch();
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0, fetch: gate.fetch });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: () => 'ada',
    source: memorySource().source,
    webhook: { secrets: SECRET },
    onError: () => {},
  });
  const submit = async () => {
    const res = await handler(
      new Request(`${BASE}/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-fast', prompt: 'a lighthouse' }),
      }),
    );
    expect(res.status).toBe(202);
    return ((await res.json()) as { generation_id: string }).generation_id;
  };
  /** The service's signed `generation.completed` delivery, posted to the handler's receiver. */
  const complete = async (id: string) => {
    const res = await handler(new Request(`${BASE}/webhooks/mediagen`, await completedDelivery(id, SECRET)));
    expect(res.status).toBe(200);
  };
  /** Opens the stream with its fresh read held, delivers the webhook meanwhile, then lets the read answer. */
  const streamWithWebhookDuringRead = async (id: string, headers: Record<string, string> = {}) => {
    const read = gate.hold(id);
    const opening = handler(new Request(`${BASE}/generations/${id}/events`, { headers }));
    await read.inFlight;
    await complete(id);
    read.release();
    const res = await opening;
    expect(res.status).toBe(200);
    return { res, events: sseReader(res.body!) };
  };
  return { handler, submit, streamWithWebhookDuringRead };
}

describe('GET /generations/:id/events: a terminal webhook during the fresh read', () => {
  it('is the first state a new stream sends (the read still said pending), and the stream ends', async () => {
    const app = setup();
    const id = await app.submit();
    const { events } = await app.streamWithWebhookDuringRead(id);
    const first = await events.until(() => true);
    expect(dataOf(first).map((g) => [g.generation_id, g.status])).toEqual([[id, 'completed']]);
    expect(first.filter((e) => e.data).at(-1)!.id).toBe('3');
    expect(await events.rest()).toEqual([]);
    expect(app.handler.openStreams).toBe(0);
  });

  it('reaches a stream reopened with Last-Event-ID (what a browser does after a cut)', async () => {
    const app = setup();
    const id = await app.submit();
    const { events } = await app.streamWithWebhookDuringRead(id, { 'last-event-id': '1' });
    const resumed = await events.rest();
    expect(dataOf(resumed).map((g) => g.status)).toEqual(['completed']);
    expect(resumed.filter((e) => e.data).map((e) => e.id)).toEqual(['3']);
    expect(app.handler.openStreams).toBe(0);
  });
});
