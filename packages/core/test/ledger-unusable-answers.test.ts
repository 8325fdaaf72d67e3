import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { APIError, MediaGenClient } from '../src/index';
import { createGenerationLedger, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { createMediaGenHandler, errorReply } from '../src/server';
import { ERROR_CODES } from '../src/wire';
import { KEY, ledgerEmulator, manualClock } from './support/ledger-emulator';

/**
 * Issue 30, findings 1-4: only the contract's own refusal ends an intent (an answer that does not
 * prove the submit was refused leaves it to be resent with its own key, so a billed generation is
 * never forgotten and never billed twice); a refusal never goes out with a 2xx; a submit refused
 * before sending leaves nothing stored; hostile nesting is a 4xx.
 */
const emu = await ledgerEmulator();
afterAll(() => emu.close());

/** What a broken service (or a proxy in front of it) may answer a submit with, after billing it. */
const unusable = fc.oneof(
  // A 2xx whose body is no 202 of the contract.
  fc.record({
    status: fc.constantFrom(200, 201, 202, 204),
    body: fc.oneof(
      fc.constant('{"ok":true}'),
      fc.json(),
      fc.string(),
      fc.constant('{"generation_id":42,"status":"pending"}'),
      fc.constant('{"generation_id":"x","status":"pe'),
    ),
  }),
  // An error status the contract's table does not pair with that code (a proxy's page, a newer code).
  fc.record({
    status: fc.integer({ min: 400, max: 599 }),
    body: fc.oneof(fc.constant('<html>bad gateway</html>'), fc.string(), fc.constant('{"error":"SOMETHING_NEW","message":"x"}')),
  }),
);

/** A client whose first submit reaches the real emulator (billed there), then gets `answer` instead of the 202. */
function clientAnswering(answer: { status: number; body: string }) {
  let replaced = false;
  return new MediaGenClient({
    apiKey: KEY,
    baseUrl: emu.url,
    maxRetries: 0,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const url = String(input instanceof Request ? input.url : input);
      if (replaced || !url.endsWith('/api/v1/generate') || init?.method !== 'POST') return response;
      replaced = true;
      await response.arrayBuffer();
      const body = answer.status === 204 ? null : answer.body;
      return new Response(body, { status: answer.status, headers: { 'content-type': 'application/json', 'x-request-id': 'req_proxy' } });
    },
  });
}

describe('a submit answered with anything but a contract refusal stays an intent, resent with its own key', () => {
  it('property: billed once, the intent kept (listed as submitting), and the resend answers the original generation', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(unusable, async (answer) => {
        const key = `unusable-${n++}`;
        const store = new MemoryGenerationStore();
        const clock = manualClock();
        const before = await emu.reserves();
        const ledger = createGenerationLedger({ client: clientAnswering(answer), store, now: clock.now, onError: () => {} });
        const error = await ledger.submit('ada', { model: 'image-fast', prompt: 'billed, answered badly' }, { idempotencyKey: key }).then(
          () => undefined,
          (e: unknown) => e,
        );
        // A contract refusal is the one thing that ends it; none of these is one (the emulator billed the call).
        if (error === undefined) return; // a body that happened to be usable
        const [intent] = (await ledgerSource(ledger).list('ada', { limit: 5 })).generations;
        expect(intent).toMatchObject({ idempotency_key: key, submitting: true, generation_id: null });
        clock.advance(5 * 60_000);
        expect((await ledger.reconcile()).resent).toBe(1);
        const record = await store.get(key);
        const billed = (await emu.reserves()).filter((id) => !before.includes(id));
        expect(billed).toHaveLength(1);
        expect(record).toMatchObject({ generation_id: billed[0], status: 'pending' });
      }),
      { numRuns: 40 },
    );
  });

  it('a contract refusal still ends it: failed with its code, nothing billed, handed over once', async () => {
    const store = new MemoryGenerationStore();
    const handed: string[] = [];
    const ledger = createGenerationLedger({ client: emu.client(), store, onTerminal: (g) => void handed.push(g.error?.code ?? '') });
    await expect(
      ledger.submit('ada', { model: 'image-fast', prompt: 'x [[blocked]]' }, { idempotencyKey: 'refused-1' }),
    ).rejects.toMatchObject({ code: 'CONTENT_POLICY_VIOLATION' });
    expect(await store.get('refused-1')).toMatchObject({ status: 'failed', generation_id: null, notified: true });
    expect(handed).toEqual(['CONTENT_POLICY_VIOLATION']);
  });

  it('the route answers such a submit 502 (never 202 with an error body); the page’s retry with its key gets the billed generation', async () => {
    const before = await emu.reserves();
    const client = clientAnswering({ status: 202, body: '{"ok":true}' });
    const ledger = createGenerationLedger({ client, store: new MemoryGenerationStore(), onError: () => {} });
    const handler = createMediaGenHandler({
      client,
      basePath: '/api',
      identify: () => 'ada',
      source: ledgerSource(ledger),
      onError: () => {},
    });
    const post = () =>
      handler(
        new Request('http://app.test/api/generations', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'page-1' },
          body: JSON.stringify({ model: 'image-fast', prompt: 'answered {"ok":true}' }),
        }),
      );
    const first = await post();
    expect(first.status).toBe(502);
    expect(await first.json()).toMatchObject({ error: 'INVALID_RESPONSE' });
    const retry = await post();
    expect(retry.status).toBe(202);
    const { generation_id } = (await retry.json()) as { generation_id: string };
    expect((await emu.reserves()).filter((id) => !before.includes(id))).toEqual([generation_id]);
  });
});

describe('a refusal always carries an error status', () => {
  it('property: errorReply of any SDK error answers 400-599, whatever status the upstream answer had', () => {
    const codes = [...Object.keys(ERROR_CODES), 'INVALID_RESPONSE', 'SOMETHING_NEW'];
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 999 }), fc.constantFrom(...codes), (status, code) => {
        const reply = errorReply(new APIError('upstream', { status, code }));
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expect(reply.status).toBeLessThanOrEqual(599);
        if (status >= 400 && status <= 599 && reply.status !== status) expect([500, 503]).toContain(reply.status); // the app's own key or account
      }),
    );
  });
});

describe('what is refused before sending is not stored', () => {
  it('a submit the model’s schema refuses writes nothing (no row for a 95 KB prompt), and bills nothing', async () => {
    const store = new MemoryGenerationStore();
    const ledger = createGenerationLedger({ client: emu.client(), store });
    for (let i = 0; i < 20; i++) {
      await expect(ledger.submit('ada', { model: 'image-fast', prompt: 'x'.repeat(95_000) })).rejects.toMatchObject({
        code: 'PARAMS_INVALID',
      });
    }
    expect(await store.list('ada', { limit: 100 })).toEqual([]);
  });

  it('property: params nested deeper than 64 levels are refused 422 by the ledger and by the route, never a 500', async () => {
    const ledger = createGenerationLedger({ client: emu.client(), store: new MemoryGenerationStore() });
    const handler = createMediaGenHandler({
      client: emu.client(),
      basePath: '/api',
      identify: () => 'ada',
      source: ledgerSource(ledger),
      onError: () => {},
    });
    const nested = fc
      .record({
        depth: fc.integer({ min: 65, max: 5_000 }),
        field: fc.constantFrom('reference_images', 'prompt', 'seed'),
        array: fc.boolean(),
      })
      .map(({ depth, field, array }) => {
        const open = array ? '[' : '{"a":';
        const close = array ? ']' : '}';
        return `{"model":"image-fast","${field}":${open.repeat(depth)}1${close.repeat(depth)}}`;
      });
    await fc.assert(
      fc.asyncProperty(nested, async (body) => {
        await expect(ledger.submit('ada', JSON.parse(body))).rejects.toMatchObject({ status: 422, code: 'INVALID_BODY' });
        const res = await handler(
          new Request('http://app.test/api/generations', { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
        );
        expect(res.status).toBe(422);
        expect(await res.json()).toMatchObject({ error: 'INVALID_BODY' });
      }),
      { numRuns: 30 },
    );
  });
});

describe('retention of refusals', () => {
  it('a refused intent is kept for refusedRetentionMs (a replay of its key answers the same refusal), then deleted; a billed generation never is', async () => {
    const store = new MemoryGenerationStore();
    const clock = manualClock();
    const ledger = createGenerationLedger({ client: emu.client(), store, now: clock.now, refusedRetentionMs: 60 * 60_000 });
    await ledger.submit('ada', { model: 'image-fast', prompt: 'x [[blocked]]' }, { idempotencyKey: 'kept-1' }).catch(() => {});
    const billed = await ledger.submit('ada', { model: 'image-fast', prompt: 'kept for good' }, { idempotencyKey: 'kept-2' });
    clock.advance(59 * 60_000);
    await ledger.reconcile();
    await expect(
      ledger.submit('ada', { model: 'image-fast', prompt: 'x [[blocked]]' }, { idempotencyKey: 'kept-1' }),
    ).resolves.toMatchObject({
      status: 'failed',
      error: { code: 'CONTENT_POLICY_VIOLATION' },
    });
    clock.advance(2 * 60_000);
    await ledger.reconcile();
    expect(await store.get('kept-1')).toBeUndefined();
    expect((await store.get('kept-2'))?.generation_id).toBe(billed.generation_id);
  });
});

describe('a persist failure no later pass can change', () => {
  it('an output over maxOutputBytes is reported once and the generation handed over with the service’s links, not retried every pass', async () => {
    const clock = manualClock();
    const handed: { outputs: unknown; url: unknown }[] = [];
    const errors: unknown[] = [];
    let puts = 0;
    const ledger = createGenerationLedger({
      client: emu.client(),
      store: new MemoryGenerationStore(),
      now: clock.now,
      maxOutputBytes: 16,
      persistOutputs: {
        async put(_name, body) {
          puts++;
          await new Response(body).arrayBuffer();
          return 'https://app.test/kept';
        },
      },
      onTerminal: (g) => void handed.push({ outputs: g.output_url, url: g.output_urls }),
      onError: (e) => void errors.push(e),
    });
    const g = await ledger.submit('ada', { model: 'image-fast', prompt: 'too large to keep' });
    await emu.settled(g.generation_id as string);
    for (let i = 0; i < 5 && handed.length === 0; i++) {
      clock.advance(4_000);
      await ledger.reconcile();
    }
    expect(handed).toHaveLength(1);
    expect(String(handed[0]?.outputs)).toContain('/api/v1/output/');
    for (let i = 0; i < 3; i++) {
      clock.advance(4_000);
      await ledger.reconcile();
    }
    expect(puts).toBe(1);
    expect(errors.filter((e) => (e as { code?: string }).code === 'OUTPUT_TOO_LARGE')).toHaveLength(1);
  });
});
