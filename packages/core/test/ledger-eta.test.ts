import { afterAll, describe, expect, it } from 'vitest';
import type { Generation } from '../src/index';
import { createGenerationLedger, type GenerationRecord, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { createMediaGenHandler } from '../src/server';
import { ledgerEmulator, manualClock } from './support/ledger-emulator';
import { dataOf, sseReader } from './support/sse';

const emu = await ledgerEmulator();
afterAll(() => emu.close());

const BASE = 'http://app.test/api';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');

/** A completed image-fast generation of the past that took `ms`. */
function past(i: number, ms: number): GenerationRecord {
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  return {
    key: `past-${i}`,
    owner: 'ada',
    params: { model: 'image-fast', prompt: `an old one ${i}` },
    status: 'completed',
    generation_id: id,
    generation: {
      generation_id: id,
      status: 'completed',
      model: 'image-fast',
      output_url: null,
      output_urls: null,
      credits_used: 4,
      duration_ms: ms,
      created_at: new Date(T0 - 3_600_000).toISOString(),
      completed_at: new Date(T0 - 3_600_000 + ms).toISOString(),
      request_id: 'req_past',
    },
    error: null,
    unavailable: false,
    abandoned: false,
    notified: true,
    outputs: null,
    created_at: T0 - 3_600_000,
    updated_at: T0 - 3_600_000 + i,
    next_check_at: 0,
    version: 1,
    lease_holder: null,
    lease_until: 0,
  };
}

async function app(history: number[]) {
  const store = new MemoryGenerationStore();
  for (const [i, ms] of history.entries()) await store.insert(past(i, ms));
  const clock = manualClock(T0);
  const client = emu.client();
  const ledger = createGenerationLedger({ client, store, now: clock.now });
  // The first pass reads the history back from the store (as a ledger does when it starts).
  await ledger.reconcile();
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source: ledgerSource(ledger),
    onError: () => {},
  });
  const submit = async (prompt: string) => {
    const response = await handler(
      new Request(`${BASE}/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': 'ada' },
        body: JSON.stringify({ model: 'image-fast', prompt }),
      }),
    );
    expect(response.status).toBe(202);
    return ((await response.json()) as { generation_id: string }).generation_id;
  };
  const read = (path: string) => handler(new Request(BASE + path, { headers: { 'x-user': 'ada' } }));
  return { store, ledger, handler, clock, submit, read };
}

/** Lets the held render go once the emulator holds it. */
async function releaseHeld(): Promise<void> {
  await emu.control('GET', '/faults/held?min=1');
  await emu.control('POST', '/faults/release');
}

// Ten past renders of 1 s … 10 s; the clock stands still, so the new one has run 0 ms.
const TEN = Array.from({ length: 10 }, (_, i) => (i + 1) * 1_000);
const FROM_HISTORY = {
  estimate: true,
  remaining_p50_ms: 5_500,
  remaining_p90_ms: 9_100,
  as_of: new Date(T0).toISOString(),
  basis: 'history',
  samples: 10,
  overdue: false,
};

describe('ETA from what this app has seen', () => {
  it('the status read, the stream events and the ledger wait carry the estimate from the seeded history; terminal states none', async () => {
    const { ledger, submit, read } = await app(TEN);
    const id = await submit('a held render [[hold]]');

    const status = (await (await read(`/generations/${id}`)).json()) as Record<string, unknown>;
    expect(['pending', 'processing']).toContain(status.status);
    expect(status.eta).toEqual(FROM_HISTORY);

    const stream = await read(`/generations/${id}/events`);
    expect(stream.status).toBe(200);
    const events = sseReader(stream.body!);
    const [first] = dataOf(await events.until(() => true));
    expect(first?.eta).toEqual(FROM_HISTORY);

    // The ledger's own wait: each status read reaches onUpdate with its estimate.
    const updates: (Generation & { eta?: unknown })[] = [];
    let sawRunning!: () => void;
    const running = new Promise<void>((resolve) => (sawRunning = resolve));
    const waited = ledger.wait('ada', id, {
      onUpdate: (g) => {
        updates.push(g);
        if (g.status !== 'completed') sawRunning();
      },
    });
    await running;
    expect(updates[0]?.eta).toEqual(FROM_HISTORY);
    await releaseHeld();
    const done = await waited;
    expect(done.status).toBe('completed');
    expect(done.eta).toBeUndefined();
    expect(updates.at(-1)?.status === 'completed' ? updates.at(-1)?.eta : undefined).toBeUndefined();

    const terminal = dataOf(await events.rest()).at(-1);
    expect(terminal?.status).toBe('completed');
    expect(terminal).not.toHaveProperty('eta');
    expect((await (await read(`/generations/${id}`)).json()) as object).not.toHaveProperty('eta');

    // The completion the ledger recorded joined the history: eleven renders now.
    expect(
      ledger.eta({ generation_id: null, status: 'processing', model: 'image-fast', created_at: new Date(T0).toISOString() }),
    ).toMatchObject({
      basis: 'history',
      samples: 11,
    });
    const listed = (await (await read('/generations')).json()) as { generations: Record<string, unknown>[] };
    expect(listed.generations.every((g) => !('eta' in g))).toBe(true);
  });

  it('without history, the contract typical range for the kind, labelled typical; it counts down with the ledger clock', async () => {
    const { submit, read, clock } = await app([]);
    const id = await submit('no history yet [[hold]]');
    const status = (await (await read(`/generations/${id}`)).json()) as Record<string, unknown>;
    expect(status.eta).toEqual({
      estimate: true,
      remaining_p50_ms: 10_000,
      remaining_p90_ms: 14_000,
      as_of: new Date(T0).toISOString(),
      basis: 'typical',
      samples: 0,
      overdue: false,
    });
    clock.advance(9_000);
    const later = (await (await read(`/generations/${id}`)).json()) as { eta: Record<string, unknown> };
    expect(later.eta).toMatchObject({ remaining_p50_ms: 3_000, remaining_p90_ms: 5_400, basis: 'typical' });
    await releaseHeld();
    await emu.settled(id);
  });

  it('a handler with neither a source nor an eta option sends no eta; an eta option of its own is used, and one that throws adds nothing', async () => {
    const client = emu.client();
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'direct [[hold]]' });
    const bare = createMediaGenHandler({ client, basePath: '/api', allowAnonymous: true, onError: () => {} });
    const plain = (await (await bare(new Request(`${BASE}/generations/${submitted.generation_id}`))).json()) as object;
    expect(plain).not.toHaveProperty('eta');
    const own = {
      estimate: true,
      remaining_p50_ms: 1,
      remaining_p90_ms: 2,
      as_of: 'x',
      basis: 'typical',
      samples: 0,
      overdue: false,
    } as const;
    const withOwn = createMediaGenHandler({ client, basePath: '/api', allowAnonymous: true, onError: () => {}, eta: () => own });
    expect(((await (await withOwn(new Request(`${BASE}/generations/${submitted.generation_id}`))).json()) as { eta: unknown }).eta).toEqual(
      own,
    );
    const throwing = createMediaGenHandler({
      client,
      basePath: '/api',
      allowAnonymous: true,
      onError: () => {},
      eta: () => {
        throw new Error('broken provider');
      },
    });
    const answer = await throwing(new Request(`${BASE}/generations/${submitted.generation_id}`));
    expect(answer.status).toBe(200);
    expect((await answer.json()) as object).not.toHaveProperty('eta');
    await releaseHeld();
    await emu.settled(submitted.generation_id);
  });
});
