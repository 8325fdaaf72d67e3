import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Gate, MediaGenClient } from '../src/index';
import { batchItemKey, createGenerationLedger, MemoryGenerationStore, runBatch } from '../src/ledger';
import { KEY, ledgerEmulator } from './support/ledger-emulator';

/**
 * Issue 34, item 5: many requests as one batch on the ledger, through the gate. Results in
 * order, failures per item, and a batch stopped mid-run and run again under the same id bills
 * nothing twice and loses nothing (counted from the emulator's account ledger).
 */
const emu = await ledgerEmulator();
afterAll(() => emu.close());

function setUp() {
  // The gate keeps the batch under the account's limits: one gated client per run.
  const gated = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, maxRetries: 1, gate: new Gate() });
  const store = new MemoryGenerationStore();
  const ledger = createGenerationLedger({ client: gated, store, onError: () => {} });
  return { client: gated, store, ledger };
}

const billedTwice = (reserves: string[]) => reserves.length - new Set(reserves).size;

describe('runBatch', () => {
  it('results in order, each failure on its own item, each accepted item billed once', async () => {
    const { client, ledger } = setUp();
    const before = await emu.reserves();
    const items = [
      { model: 'image-fast', prompt: 'batch one' },
      { model: 'image-fast', prompt: 'batch two [[fail:model_unavailable]]' },
      { model: 'image-fast', prompt: 'batch three [[blocked]]' },
      { model: 'image-fast', prompt: 'batch four', number_results: 99 },
      { model: 'no-such-model', prompt: 'batch five' },
      { model: 'image-fast', prompt: 'batch six' },
    ];
    const result = await runBatch({ ledger, client, owner: 'ada', batchId: 'b-order', items, concurrency: 3, intervalMs: 20 });
    expect(result.items.map((i) => i.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(result.items.map((i) => i.status)).toEqual(['completed', 'failed', 'failed', 'failed', 'failed', 'completed']);
    expect(result.items[1]?.error?.code).toBe('model_unavailable');
    expect(result.items[2]?.error?.code).toBe('CONTENT_POLICY_VIOLATION');
    expect(result.items[3]?.error?.code).toBe('PARAMS_INVALID');
    expect(result.items[4]?.error?.code).toBe('UNKNOWN_MODEL');
    expect(result).toMatchObject({ total: 6, completed: 2, failed: 4, unfinished: 0, running: 0, queued: 0, interrupted: false });
    for (const item of result.items) {
      expect(item.idempotency_key).toBe(batchItemKey('b-order', item.index, items[item.index] as never));
    }
    // Billed: the two completed and the one that failed after its 202 (refunded): three reservations, none twice.
    const billed = (await emu.reserves()).slice(before.length);
    expect(billed).toHaveLength(3);
    expect(billedTwice(billed)).toBe(0);
    expect(new Set(billed)).toEqual(new Set([0, 1, 5].map((i) => result.items[i]?.generation?.generation_id)));
  });

  it('stopped mid-run, then run again under the same id: what was recorded is followed, the rest submitted, none billed twice', async () => {
    const { client, store, ledger } = setUp();
    const before = await emu.reserves();
    // Items 2 and 3 render until released: the run is stopped while both are in hand.
    const items = Array.from({ length: 7 }, (_, i) => ({
      model: 'image-fast',
      prompt: `resume ${i}${i === 2 || i === 3 ? ' [[hold]]' : ''}`,
    }));
    const stop = new AbortController();
    const first = runBatch({
      ledger,
      client,
      owner: 'ada',
      batchId: 'b-resume',
      items,
      concurrency: 2,
      intervalMs: 20,
      signal: stop.signal,
    });
    await emu.control('GET', '/faults/held?min=2');
    stop.abort();
    const stopped = await first;
    expect(stopped.interrupted).toBe(true);
    expect(stopped.items.map((i) => i.status)).toEqual(['completed', 'completed', ...Array(5).fill('unfinished')]);
    // The two in hand were billed and are recorded with their generation; the rest never sent.
    expect(stopped.items[2]?.generation?.generation_id).toBeTruthy();
    expect(stopped.items[4]?.generation).toBeNull();
    await emu.control('POST', '/faults/release', {});

    // A new ledger on the same store: as a restarted process would be.
    const again = createGenerationLedger({ client, store, onError: () => {} });
    const resumed = await runBatch({ ledger: again, client, owner: 'ada', batchId: 'b-resume', items, concurrency: 2, intervalMs: 20 });
    expect(resumed.items.map((i) => i.status)).toEqual(Array(7).fill('completed'));
    expect(resumed.items.map((i) => i.resumed)).toEqual([true, true, true, true, false, false, false]);
    expect(resumed.resumed).toBe(4);
    for (const i of [0, 1, 2, 3]) expect(resumed.items[i]?.generation?.generation_id).toBe(stopped.items[i]?.generation?.generation_id);
    const billed = (await emu.reserves()).slice(before.length);
    expect(billed).toHaveLength(7);
    expect(billedTwice(billed)).toBe(0);
  });

  it('an item key: the same for the same content in any key order, new for new content, a valid Idempotency-Key (fast-check)', () => {
    const value = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), value, { maxKeys: 6 }),
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => /^[\x21-\x7e]+$/.test(s)),
        fc.nat(1_000_000),
        (extra, batchId, index) => {
          const params = { model: 'image-fast', ...extra };
          const reversed = Object.fromEntries(Object.entries(params).reverse());
          const key = batchItemKey(batchId, index, params as never);
          expect(batchItemKey(batchId, index, reversed as never)).toBe(key);
          expect(key).toMatch(/^[\x21-\x7e]{1,255}$/);
          expect(batchItemKey(batchId, index + 1, params as never)).not.toBe(key);
          expect(batchItemKey(batchId, index, { ...params, model: 'other' } as never)).not.toBe(key);
        },
      ),
      { numRuns: 200 },
    );
    expect(() => batchItemKey('has space', 0, { model: 'x' } as never)).toThrow(/batch id/);
    expect(() => batchItemKey('x'.repeat(129), 0, { model: 'x' } as never)).toThrow(/batch id/);
  });
});
