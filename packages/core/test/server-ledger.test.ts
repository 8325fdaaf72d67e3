import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type Generation, MediaGenClient, signWebhook } from '../src/index';
import { createGenerationLedger, type GenerationStore, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { createMediaGenHandler } from '../src/server';
import { ledgerEmulator, manualClock } from './support/ledger-emulator';

const emu = await ledgerEmulator();
afterAll(() => emu.close());

const BASE = 'http://app.test/api';
const submit = (user: string, key: string, prompt: string) =>
  new Request(`${BASE}/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-user': user, 'idempotency-key': key },
    body: JSON.stringify({ model: 'image-fast', prompt }),
  });
const read = (user: string, path: string) => new Request(BASE + path, { headers: { 'x-user': user } });

/**
 * A store that dies with its process: once `kill()` is called every call throws, as the writes
 * of a process killed at that point never happen. The records it already wrote stay in `inner`.
 */
function mortal(inner: GenerationStore) {
  let dead = false;
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (dead) return Promise.reject(new Error('process killed'));
        return value.apply(target, args);
      };
    },
  });
  return { store, kill: () => (dead = true) };
}

function app(store: GenerationStore, now: () => number, onKill?: () => void) {
  const submitted: string[] = [];
  const terminal: string[] = [];
  // The process dies the moment the service's 202 reaches it: after the bill, before any write.
  const client = onKill
    ? new MediaGenClient({
        apiKey: 'svc_live_ledger',
        baseUrl: emu.url,
        maxRetries: 0,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if (String(input instanceof Request ? input.url : input).endsWith('/api/v1/generate')) onKill();
          return response;
        },
      })
    : emu.client();
  const ledger = createGenerationLedger({ client, store, now, onTerminal: (g) => void terminal.push(g.generation_id ?? '') });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source: ledgerSource(ledger),
    onSubmitted: (s) => void submitted.push(s.generation_id),
    onError: () => {},
    webhook: { secrets: 'whsec_ledger' },
  });
  return { ledger, handler, submitted, terminal };
}

const billed = async (id: string) => (await emu.reserves()).filter((r) => r === id).length;

describe('createMediaGenHandler with the ledger as its source: intent first', () => {
  it('records the intent under the owner-scoped key before the call; a replay answers the same generation, billed and handed over once', async () => {
    const store = new MemoryGenerationStore();
    const { handler, submitted } = app(store, Date.now);
    const first = await handler(submit('ada', 'click-1', 'intent first'));
    expect(first.status).toBe(202);
    const body = (await first.json()) as { generation_id: string };
    const replay = await handler(submit('ada', 'click-1', 'intent first'));
    expect(replay.status).toBe(202);
    expect(((await replay.json()) as { generation_id: string }).generation_id).toBe(body.generation_id);
    expect(await billed(body.generation_id)).toBe(1);
    expect(submitted).toEqual([body.generation_id]);
    const record = await store.getByGenerationId(body.generation_id);
    expect(record).toMatchObject({ owner: 'ada', status: 'pending' });
    // The key the service saw is the handler's owner-scoped one, never the browser's own.
    expect(record?.key).toMatch(/^[0-9a-f]{64}$/);
    // Another user's same key is another intent: no collision, no read across.
    const other = await handler(submit('bob', 'click-1', 'intent first'));
    expect(((await other.json()) as { generation_id: string }).generation_id).not.toBe(body.generation_id);
    expect((await handler(read('bob', `/generations/${body.generation_id}`))).status).toBe(404);
  });

  it('a crash after the 202, before the generation id is written, loses nothing: the restarted app resends the intent and the replay answers it', async () => {
    const inner = new MemoryGenerationStore();
    const clock = manualClock();
    const doomed = mortal(inner);
    const before = app(doomed.store, clock.now, doomed.kill);
    const crashed = await before.handler(submit('ada', 'crash-1', 'crash after 202'));
    expect(crashed.status).toBe(500);
    expect(before.submitted).toEqual([]);
    const [intent] = await inner.list('ada', { limit: 10 });
    expect(intent).toMatchObject({ status: 'submitting', generation_id: null });

    // Restarted: a new ledger and handler over what the store kept.
    const after = app(inner, clock.now);
    clock.advance(10 * 60_000);
    const pass = await after.ledger.reconcile();
    expect(pass.resent).toBe(1);
    const [resent] = await inner.list('ada', { limit: 10 });
    const id = resent?.generation_id as string;
    expect(id).toEqual(expect.any(String));
    expect(await billed(id)).toBe(1);
    const listed = (await (await after.handler(read('ada', '/generations'))).json()) as { generations: { generation_id: string }[] };
    expect(listed.generations.map((g) => g.generation_id)).toEqual([id]);
    // The browser's retry with its key answers that generation; onSubmitted runs once, on the first answer.
    for (let i = 0; i < 2; i++) {
      const retry = await after.handler(submit('ada', 'crash-1', 'crash after 202'));
      expect(retry.status).toBe(202);
      expect(((await retry.json()) as { generation_id: string }).generation_id).toBe(id);
    }
    expect(await billed(id)).toBe(1);
    expect(after.submitted).toEqual([id]);
  });

  it("the webhook route's events reach the ledger: a delivery records the terminal state, handed to onTerminal once", async () => {
    const store = new MemoryGenerationStore();
    const { handler, terminal } = app(store, Date.now);
    const res = await handler(submit('ada', 'hook-1', 'webhook'));
    const { generation_id: id } = (await res.json()) as { generation_id: string };
    await emu.settled(id);
    const done = (await emu.client().generations.get(id)) as Generation;
    const body = JSON.stringify({
      generation_id: id,
      status: done.status,
      model: done.model,
      output_url: done.output_url,
      output_urls: done.output_urls,
      credits_charged: done.credits_used,
      duration_ms: 1,
      completed_at: done.completed_at,
    });
    const deliver = async () =>
      handler(
        new Request(`${BASE}/webhooks/mediagen`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-service-event': `generation.${done.status}`,
            'x-service-delivery-id': crypto.randomUUID(),
            'x-service-signature': await signWebhook(body, 'whsec_ledger'),
          },
          body,
        }),
      );
    expect((await deliver()).status).toBe(200);
    expect((await deliver()).status).toBe(200);
    expect((await store.getByGenerationId(id))?.status).toBe(done.status);
    expect(terminal).toEqual([id]);
  });
});

describe('a refused submit, sent again with its key', () => {
  it('answers the same refusal, never a 202 without a generation', async () => {
    const { handler, submitted } = app(new MemoryGenerationStore(), Date.now);
    for (let i = 0; i < 2; i++) {
      const res = await handler(submit('ada', 'refused-1', 'nope [[blocked]]'));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'CONTENT_POLICY_VIOLATION' });
    }
    expect(submitted).toEqual([]);
  });
});

describe('the list route, asked anything', () => {
  it('a cursor or limit from the query string is never a 500: a bad cursor is 422 INVALID_BODY naming the field', async () => {
    const { handler } = app(new MemoryGenerationStore(), Date.now);
    await handler(submit('ada', 'list-1', 'one'));
    await handler(submit('ada', 'list-2', 'two'));
    const first = (await (await handler(read('ada', '/generations?limit=1'))).json()) as { next_cursor: string };
    expect(first.next_cursor).toEqual(expect.any(String));
    const page = await handler(read('ada', `/generations?limit=1&cursor=${encodeURIComponent(first.next_cursor)}`));
    expect(page.status).toBe(200);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 60 }),
          fc.constantFrom('1.', '.x', '9999999999999999.%E0%A4%A', '1.%ZZ', `${'9'.repeat(17)}.k`),
        ),
        fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('-1', '0', '1e9', 'NaN', '2.5')),
        async (cursor, limit) => {
          const response = await handler(
            read('ada', `/generations?limit=${encodeURIComponent(limit)}&cursor=${encodeURIComponent(cursor)}`),
          );
          const body = (await response.json()) as { error?: string; details?: { field?: string } };
          // An empty cursor is no cursor (the first page); any other either is one this list gave or is refused.
          expect([200, 422]).toContain(response.status);
          if (response.status === 422) expect(body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'cursor' } });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('an id from the path that names nothing is 404 on both generation routes, whatever its characters', async () => {
    const { handler } = app(new MemoryGenerationStore(), Date.now);
    const encode = (text: string) => {
      try {
        return encodeURIComponent(text);
      } catch {
        return '%ED%A0%80'; // a lone surrogate: U+D800's bytes, which no decoder accepts
      }
    };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), fc.string({ minLength: 300, maxLength: 2_000 })),
        async (id) => {
          for (const path of [`/generations/${encode(id)}`, `/generations/${encode(id)}/events`]) {
            const response = await handler(read('ada', path));
            expect(response.status).toBe(404);
            expect(await response.json()).toMatchObject({ error: 'NOT_FOUND' });
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
