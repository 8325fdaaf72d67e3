import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, Gate, type GateWait, MediaGenClient, MemoryGateStore } from '../src/index';
import { queueGateStore } from '../src/server';

// Stopping a submit (issue 34): an abort before the send point means nothing was sent and nothing
// charged; after it the submit runs to the service's answer, billed, and only the following stops.
// A cancel racing the send is one or the other, never both: counted from the emulator's ledger.

const API_KEY = 'svc_live_cancel_race_0123456789';
const ACCOUNT = 'acct_cancel';
const MAX_CONCURRENT = 5; // the pro tier's

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: ACCOUNT, tier: 'pro', balance: 1_000_000, keys: [{ key: API_KEY }] }] },
  });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

/** Reservations the account was billed: one per generation the emulator accepted. */
const reserves = async () => (await emu.accounts.get(ACCOUNT)).ledger.filter((row) => row.type === 'reserve');
const gated = () =>
  new MediaGenClient({
    apiKey: API_KEY,
    baseUrl: emu.url,
    maxRetries: 0,
    gate: new Gate({ store: queueGateStore(new MemoryGateStore()) }),
  });
/** No gate: reads that must not touch the gated client's slots. */
const plain = () => new MediaGenClient({ apiKey: API_KEY, baseUrl: emu.url, maxRetries: 0 });
const held = (n: number) => ({ model: 'image-fast', prompt: `[[hold]] render ${n}` });

/** Resolves at the first wait told to `onQueue`, with every wait told. */
function queueWatch() {
  const waits: GateWait[] = [];
  let told!: () => void;
  const first = new Promise<void>((resolve) => {
    told = resolve;
  });
  return { waits, first, onQueue: (wait: GateWait) => void (waits.push(wait), told()) };
}

async function terminal(client: MediaGenClient, id: string): Promise<void> {
  for (;;) {
    const g = await client.generations.get(id);
    if (g.status === 'completed' || g.status === 'failed') return;
    await emu.faults.held({ min: 0 });
  }
}

describe('cancel', () => {
  it('an abort while waiting in the gate: nothing sent, nothing charged; waiters are told their place and what holds them', async () => {
    const client = gated();
    for (let i = 0; i < MAX_CONCURRENT; i++) await client.generations.create(held(i));
    const first = queueWatch();
    const second = queueWatch();
    const stopFirst = new AbortController();
    const a = client.generations.create(
      { model: 'image-fast', prompt: 'first in line' },
      { signal: stopFirst.signal, onQueue: first.onQueue },
    );
    await first.first;
    const stopSecond = new AbortController();
    const b = client.generations.create({ model: 'image-fast', prompt: 'second' }, { signal: stopSecond.signal, onQueue: second.onQueue });
    await second.first;
    expect(first.waits[0]).toEqual({ position: 1, limit: 'max_concurrent' });
    expect(second.waits[0]).toEqual({ position: 2, limit: 'max_concurrent' });
    stopFirst.abort();
    stopSecond.abort();
    for (const pending of [a, b]) {
      const error = await pending.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AbortError);
      expect((error as AbortError).generationId).toBeUndefined();
      expect((error as AbortError).idempotencyKey).toBeTruthy();
    }
    expect(await reserves()).toHaveLength(MAX_CONCURRENT);
    await emu.faults.release();
  });

  it('an abort after the service has the request: the submit is answered and billed, and run() stops following it', async () => {
    const client = plain();
    await emu.faults.add({ endpoint: 'generate', hold: true });
    const stop = new AbortController();
    const running = client.generations.run({ model: 'image-fast', prompt: 'a heron' }, { signal: stop.signal });
    await emu.faults.held({ min: 1 }); // inside the service, past the send point
    stop.abort();
    await emu.faults.release();
    const error = (await running.catch((e: unknown) => e)) as AbortError;
    expect(error).toBeInstanceOf(AbortError);
    // The generation goes on and is billed: the error names it, the ledger has its reservation.
    expect(error.generationId).toBeTruthy();
    expect((await reserves()).map((r) => r.generation_id)).toEqual([error.generationId]);
    // create() alone, aborted the same way, answers with the generation it was billed for.
    await emu.faults.add({ endpoint: 'generate', hold: true });
    const again = new AbortController();
    const creating = client.generations.create({ model: 'image-fast', prompt: 'a crane' }, { signal: again.signal });
    await emu.faults.held({ min: 1 });
    again.abort();
    await emu.faults.release();
    const submitted = await creating;
    expect((await reserves()).map((r) => r.generation_id)).toContain(submitted.generation_id);
  });

  it('a cancel racing the send, many times: each submit is either not sent and not billed, or sent and billed, never both', async () => {
    const client = gated();
    const reader = plain();
    /** The generations holding the gate's slots, oldest first (the order the emulator releases them). */
    const holding: string[] = [];
    for (let i = 0; i < MAX_CONCURRENT; i++) holding.push((await client.generations.create(held(i))).generation_id);
    const sent: string[] = [];
    let notSent = 0;
    let fillers = MAX_CONCURRENT;
    const ROUNDS = 24;
    for (let round = 0; round < ROUNDS; round++) {
      const watch = queueWatch();
      const stop = new AbortController();
      const racing = client.generations.create(held(100 + round), { signal: stop.signal, onQueue: watch.onQueue });
      await watch.first; // waiting in the gate: every slot is held
      // Free the oldest slot at the service, and wait until it has really ended there.
      await emu.faults.held({ min: MAX_CONCURRENT });
      await emu.faults.release(1);
      const freed = holding.shift() as string;
      await terminal(reader, freed);
      // The race: the slot is given back and the signal aborts, in orders that differ per round.
      const settling = client.gate!.settle(freed);
      switch (round % 4) {
        case 0:
          stop.abort();
          break;
        case 1:
          await settling;
          stop.abort();
          break;
        case 2:
          await settling;
          for (let i = 0; i < round; i++) await Promise.resolve();
          stop.abort();
          break;
        default:
          await settling;
          await new Promise((resolve) => setImmediate(resolve));
          stop.abort();
      }
      await settling;
      const outcome = await racing.then(
        (submitted) => ({ sent: submitted.generation_id }),
        (error: unknown) => ({ error }),
      );
      if ('sent' in outcome) {
        sent.push(outcome.sent);
        holding.push(outcome.sent);
      } else {
        expect(outcome.error).toBeInstanceOf(AbortError);
        expect((outcome.error as AbortError).generationId).toBeUndefined();
        notSent++;
        // The slot it did not take: held again, so the next round waits in the gate too.
        holding.push((await client.generations.create(held(1000 + round))).generation_id);
        fillers++;
      }
    }
    const billed = (await reserves()).map((r) => r.generation_id);
    // Every bill is a filler or a submit answered as sent; every "not sent" billed nothing.
    expect(billed).toHaveLength(fillers + sent.length);
    for (const id of sent) expect(billed).toContain(id);
    expect(notSent + sent.length).toBe(ROUNDS);
    // Both outcomes were met (the race is real), neither counted twice.
    expect(notSent).toBeGreaterThan(0);
    expect(sent.length).toBeGreaterThan(0);
    await emu.faults.release();
  }, 60_000);
});
