import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createGenerationLedger, type GenerationStore, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { createMediaGenHandler } from '../src/server';
import { ledgerEmulator, manualClock } from './support/ledger-emulator';

/**
 * Issue 29: a paid generation is listed from the moment its intent is written, an instance's
 * interrupted intents are taken up as soon as its lease lapses (seconds, not a minute), and a
 * live instance's slow submit keeps its lease, so it is never resent meanwhile.
 */
const emu = await ledgerEmulator();
afterAll(() => emu.close());
afterEach(async () => {
  await emu.control('POST', '/faults/release', {});
  await emu.control('DELETE', '/faults');
});

const BASE = 'http://app.test/api';
const read = (path: string) => new Request(BASE + path, { headers: { 'x-user': 'ada' } });

function handlerOn(store: GenerationStore, now = Date.now) {
  const client = emu.client({ maxRetries: 0 });
  const ledger = createGenerationLedger({ client, store, now, onError: () => {} });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source: ledgerSource(ledger),
    onError: () => {},
  });
  return { ledger, handler };
}

/** A submit through the route that the service bills, then holds its 202 of; resolves once it is held, with the route's answer to come. */
async function submitHeld(
  handler: (request: Request) => Promise<Response>,
  key: string,
  prompt: string,
): Promise<{ answer: Promise<Response> }> {
  await emu.fault({ endpoint: 'generate', when: 'after', hold: true });
  const answer = handler(
    new Request(`${BASE}/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': 'ada', 'idempotency-key': key },
      body: JSON.stringify({ model: 'image-fast', prompt }),
    }),
  );
  await emu.control('GET', '/faults/held?min=1');
  return { answer }; // wrapped: an async function would wait for the held answer it returned
}

type Listed = { generation_id: string | null; idempotency_key: string; submitting: boolean; status: string };

describe('an intent is visible from the moment it is written', () => {
  it('listed and readable by its key while the service holds its (billed) answer, then the same entry carries the generation', async () => {
    const store = new MemoryGenerationStore();
    const { handler } = handlerOn(store);
    const { answer } = await submitHeld(handler, 'held-1', 'held answer');

    const during = (await (await handler(read('/generations'))).json()) as { generations: Listed[] };
    expect(during.generations).toHaveLength(1);
    const [intent] = during.generations;
    expect(intent).toMatchObject({ generation_id: null, submitting: true, status: 'pending' });
    // Its key names it on the single read, for its owner only.
    const key = intent?.idempotency_key as string;
    const single = await handler(read(`/generations/${key}`));
    expect(single.status).toBe(200);
    expect(await single.json()).toMatchObject({ generation_id: null, submitting: true });
    const stranger = await handler(new Request(`${BASE}/generations/${key}`, { headers: { 'x-user': 'bob' } }));
    expect(stranger.status).toBe(404);
    // Its event stream sends the intent's state and ends, asking the browser back in a second.
    const stream = await handler(read(`/generations/${key}/events`));
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await stream.text();
    expect(events).toMatch(/^retry: \d+\nid: 0\ndata: /);
    expect(JSON.parse(events.split('data: ')[1] as string)).toMatchObject({ idempotency_key: key, submitting: true });

    await emu.control('POST', '/faults/release', {});
    const submitted = (await (await answer).json()) as { generation_id: string };
    const after = (await (await handler(read('/generations'))).json()) as { generations: Listed[] };
    expect(after.generations).toHaveLength(1);
    expect(after.generations[0]).toMatchObject({ generation_id: submitted.generation_id, idempotency_key: key, submitting: false });
  });
});

describe('the feed stream shows an intent too', () => {
  it('a feed opened while the service holds a billed answer sends the intent, then the same entry (its key) with the generation', async () => {
    const store = new MemoryGenerationStore();
    const { handler } = handlerOn(store);
    const { answer } = await submitHeld(handler, 'feed-1', 'in the feed');
    const abort = new AbortController();
    const feed = await handler(new Request(`${BASE}/generations/events`, { headers: { 'x-user': 'ada' }, signal: abort.signal }));
    const reader = (feed.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const events: Record<string, unknown>[] = [];
    let buffer = '';
    const next = async () => {
      for (;;) {
        const done = buffer.indexOf('\n\n');
        if (done >= 0) {
          const block = buffer.slice(0, done);
          buffer = buffer.slice(done + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (data) return JSON.parse(data.slice(6)) as Record<string, unknown>;
          continue;
        }
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error('the feed ended');
        buffer += decoder.decode(value, { stream: true });
      }
    };
    events.push(await next());
    expect(events[0]).toMatchObject({ generation_id: null, submitting: true });
    await emu.control('POST', '/faults/release', {});
    const { generation_id } = (await (await answer).json()) as { generation_id: string };
    // Then the same entry (its key) with the generation, followed from there: the page swaps the
    // intent for it by its key (the generation's own states, announced by the submit, may come first).
    const key = events[0]?.idempotency_key;
    const swapped = (e: Record<string, unknown> | undefined) => e?.generation_id === generation_id && e?.idempotency_key === key;
    for (let i = 0; i < 8 && !swapped(events.at(-1)); i++) events.push(await next());
    expect(events.at(-1)).toMatchObject({ generation_id, idempotency_key: key });
    abort.abort();
    await reader.cancel().catch(() => {});
  });
});

describe('a dead instance’s intents are taken up when its lease lapses', () => {
  it('an intent written by an instance that died before its call is resent on the first pass past one lease (6 s), billed once', async () => {
    const store = new MemoryGenerationStore();
    const clock = manualClock();
    // The process dies right after the intent is written: the call is never made.
    const dying: GenerationStore = Object.create(store);
    dying.insert = async (record) => {
      await store.insert(record);
      throw new Error('killed');
    };
    const dead = createGenerationLedger({ client: emu.client(), store: dying, now: clock.now });
    await expect(dead.submit('ada', { model: 'image-fast', prompt: 'died after insert' }, { idempotencyKey: 'dead-1' })).rejects.toThrow();
    const before = await emu.reserves();

    const restarted = handlerOn(store, clock.now);
    // Listed at once, before anything is resent.
    const listed = (await (await restarted.handler(read('/generations'))).json()) as { generations: Listed[] };
    expect(listed.generations.map((g) => [g.idempotency_key, g.submitting])).toEqual([['dead-1', true]]);
    // Within its lease nothing is resent: its holder could still be alive.
    clock.advance(5_000);
    expect((await restarted.ledger.reconcile()).resent).toBe(0);
    // Past it, the first pass resends it (a one-minute first check would leave it alone here).
    clock.advance(2_000);
    expect((await restarted.ledger.reconcile()).resent).toBe(1);
    const record = await store.get('dead-1');
    expect(record?.generation_id).toEqual(expect.any(String));
    const billed = (await emu.reserves()).filter((id) => !before.includes(id));
    expect(billed).toEqual([record?.generation_id]);
  });

  it('a live instance’s slow submit renews its lease while the call runs: another instance never resends it meanwhile', async () => {
    const store = new MemoryGenerationStore();
    const leaseMs = 300;
    const live = createGenerationLedger({ client: emu.client({ maxRetries: 0 }), store, leaseMs });
    await emu.fault({ endpoint: 'generate', when: 'after', hold: true });
    const before = await emu.reserves();
    const submitted = live.submit('ada', { model: 'image-fast', prompt: 'slow answer' }, { idempotencyKey: 'slow-1' });
    await emu.control('GET', '/faults/held?min=1');
    const written = (await store.get('slow-1'))?.lease_until as number;
    // Renewed while the call is held: the lease moves on past the one it was written with.
    await vi.waitFor(
      async () => {
        expect((await store.get('slow-1'))?.lease_until).toBeGreaterThan(written);
      },
      { timeout: 20_000, interval: 50 },
    );
    // Another instance, on a clock just short of the lease as it stands now: nothing is due.
    const leaseNow = (await store.get('slow-1'))?.lease_until as number;
    const other = createGenerationLedger({ client: emu.client(), store, now: () => leaseNow - 1 });
    expect(await other.reconcile()).toMatchObject({ due: 0, resent: 0 });

    await emu.control('POST', '/faults/release', {});
    const generation = await submitted;
    // The answer is recorded and the lease given back in the same write.
    expect(await store.get('slow-1')).toMatchObject({ generation_id: generation.generation_id, lease_holder: null, lease_until: 0 });
    expect((await emu.reserves()).filter((id) => !before.includes(id))).toEqual([generation.generation_id]);
  });
});
