import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, Gate, type GateWait, MediaGenClient, MemoryGateStore } from '../src/index';
import { createGenerationLedger, type GenerationLedger, type LedgerGeneration, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { newRecord } from '../src/ledger/record';
import { createMediaGenHandler, queueGateStore } from '../src/server';

// ledger.cancel (issue 34): an intent not yet sent is stopped for real (nothing charged, and the
// answer says so); one the service has or may have goes on, billed, marked abandoned and still
// followed. A cancel racing the send is one or the other: counted from the emulator's ledger.

const API_KEY = 'svc_live_ledger_cancel_0123456789';
const ACCOUNT = 'acct_ledger_cancel';
const MAX_CONCURRENT = 5; // the pro tier's
const OWNER = 'user-1';

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
/** One queue for all of a test's ledgers: the gate's slots are the account's. */
const gated = (store = new MemoryGateStore()) =>
  new MediaGenClient({ apiKey: API_KEY, baseUrl: emu.url, maxRetries: 0, gate: new Gate({ store: queueGateStore(store) }) });
const plain = () => new MediaGenClient({ apiKey: API_KEY, baseUrl: emu.url, maxRetries: 0 });
const held = (n: number) => ({ model: 'image-fast', prompt: `[[hold]] render ${n}` });

/** Fills every concurrency slot of `client`'s gate with held renders; their ids, oldest first. */
async function fill(client: MediaGenClient): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < MAX_CONCURRENT; i++) ids.push((await client.generations.create(held(i))).generation_id);
  return ids;
}

/** The ledger's client with a queue watch: resolves once a submit is told it waits in the gate. */
function watchedClient(store = new MemoryGateStore()) {
  const client = gated(store);
  const waits: GateWait[] = [];
  let told: (() => void) | undefined;
  const create = client.generations.create.bind(client.generations);
  client.generations.create = ((params, options = {}) =>
    create(params, {
      ...options,
      onQueue: (wait) => {
        waits.push(wait);
        told?.();
      },
    })) as typeof client.generations.create;
  const nextWait = () => new Promise<void>((resolve) => (told = resolve));
  return { client, waits, nextWait };
}

async function terminal(reader: MediaGenClient, id: string): Promise<void> {
  for (;;) {
    const g = await reader.generations.get(id);
    if (g.status === 'completed' || g.status === 'failed') return;
    await emu.faults.held({ min: 0 });
  }
}

describe('ledger.cancel', () => {
  it('an intent waiting in the gate is stopped for real: nothing sent, nothing charged, never resent', async () => {
    const { client, nextWait } = watchedClient();
    const handed: LedgerGeneration[] = [];
    const ledger = createGenerationLedger({ client, store: new MemoryGenerationStore(), onTerminal: (g) => void handed.push(g) });
    await fill(client);
    const waiting = nextWait();
    const submitting = ledger.submit(OWNER, { model: 'image-fast', prompt: 'a heron' }, { idempotencyKey: 'stop-me' });
    await waiting;
    const answer = await ledger.cancel(OWNER, 'stop-me');
    expect(answer).toMatchObject({ outcome: 'stopped', charged: false });
    expect(answer?.generation).toMatchObject({ status: 'failed', generation_id: null, abandoned: true, error: { code: 'ABORTED' } });
    const error = await submitting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    // Ended: handed over once as a failure, never resent by the reconciler, and a replay of its key says the same.
    expect(handed.map((g) => g.idempotency_key)).toEqual(['stop-me']);
    await emu.faults.release();
    expect((await ledger.reconcile()).resent).toBe(0);
    expect((await ledger.submit(OWNER, { model: 'image-fast', prompt: 'a heron' }, { idempotencyKey: 'stop-me' })).status).toBe('failed');
    expect(await reserves()).toHaveLength(MAX_CONCURRENT);
    // Idempotent, and someone else's cancel finds nothing.
    expect(await ledger.cancel(OWNER, 'stop-me')).toMatchObject({ outcome: 'stopped', charged: false });
    expect(await ledger.cancel('user-2', 'stop-me')).toBeUndefined();
  });

  it("the caller's signal aborting in the gate stops the intent the same way", async () => {
    const { client, nextWait } = watchedClient();
    const ledger = createGenerationLedger({ client, store: new MemoryGenerationStore() });
    await fill(client);
    const stop = new AbortController();
    const waiting = nextWait();
    const submitting = ledger.submit(OWNER, { model: 'image-fast', prompt: 'a crane' }, { idempotencyKey: 'aborted', signal: stop.signal });
    await waiting;
    stop.abort();
    expect(await submitting.catch((e: unknown) => e)).toBeInstanceOf(AbortError);
    expect(await ledger.get(OWNER, 'aborted')).toMatchObject({ status: 'failed', abandoned: true, error: { code: 'ABORTED' } });
    await emu.faults.release();
    expect((await ledger.reconcile()).resent).toBe(0);
    expect(await reserves()).toHaveLength(MAX_CONCURRENT);
  });

  it('an intent the service has goes on and is billed: abandoned, still followed, its result kept', async () => {
    const client = plain();
    const handed: LedgerGeneration[] = [];
    const ledger = createGenerationLedger({ client, store: new MemoryGenerationStore(), onTerminal: (g) => void handed.push(g) });
    await emu.faults.add({ endpoint: 'generate', hold: true });
    const submitting = ledger.submit(OWNER, { model: 'image-fast', prompt: 'an owl' }, { idempotencyKey: 'sent-one' });
    await emu.faults.held({ min: 1 }); // inside the service: past the send point
    const cancelling = ledger.cancel(OWNER, 'sent-one');
    await emu.faults.release();
    const answer = await cancelling;
    expect(answer).toMatchObject({ outcome: 'abandoned', charged: true });
    const submitted = await submitting;
    expect(answer?.generation).toMatchObject({ abandoned: true, generation_id: submitted.generation_id });
    expect((await reserves()).map((r) => r.generation_id)).toEqual([submitted.generation_id]);
    // Still followed to its end (wait applies every status it reads), its result kept.
    await ledger.wait(OWNER, submitted.generation_id as string);
    const kept = await ledger.get(OWNER, submitted.generation_id as string);
    expect(kept).toMatchObject({ status: 'completed', abandoned: true });
    expect(kept?.output_url).toBeTruthy();
    expect(handed.map((g) => g.generation_id)).toEqual([submitted.generation_id]);
    expect((await ledger.list(OWNER)).generations[0]).toMatchObject({ abandoned: true });
    expect(await ledger.cancel(OWNER, submitted.generation_id as string)).toMatchObject({ outcome: 'finished', charged: true });
  });

  it("the one handler's read and list show the owner that it is abandoned", async () => {
    const client = plain();
    const ledger = createGenerationLedger({ client, store: new MemoryGenerationStore() });
    const handler = createMediaGenHandler({
      client,
      basePath: '/api',
      identify: (request) => request.headers.get('x-user') ?? undefined,
      source: ledgerSource(ledger),
    });
    const submitted = await ledger.submit(OWNER, { model: 'image-fast', prompt: '[[hold]] a kite' });
    expect(await ledger.cancel(OWNER, submitted.generation_id as string)).toMatchObject({ outcome: 'abandoned', charged: true });
    const ask = (path: string, user = OWNER) => handler(new Request(`http://app.test/api${path}`, { headers: { 'x-user': user } }));
    const read = await ask(`/generations/${submitted.generation_id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ generation_id: submitted.generation_id, abandoned: true });
    const list = (await (await ask('/generations')).json()) as { generations: LedgerGeneration[] };
    expect(list.generations).toEqual([expect.objectContaining({ generation_id: submitted.generation_id, abandoned: true })]);
    expect((await ask(`/generations/${submitted.generation_id}`, 'user-2')).status).toBe(404);
    await emu.faults.release();
  });

  it('an intent submitting after a crash may have been sent: abandoned, resent with its key, billed once', async () => {
    const client = plain();
    const store = new MemoryGenerationStore();
    // What a process that died mid-submit leaves: the intent written, its lease lapsed.
    await store.insert(newRecord('crashed', OWNER, { model: 'image-fast', prompt: 'a stork' }, Date.now() - 60_000));
    const ledger = createGenerationLedger({ client, store });
    expect(await ledger.cancel(OWNER, 'crashed')).toMatchObject({
      outcome: 'abandoned',
      charged: true,
      generation: { submitting: true, abandoned: true },
    });
    expect((await ledger.reconcile()).resent).toBe(1);
    const resent = await ledger.get(OWNER, 'crashed');
    expect(resent).toMatchObject({ abandoned: true, status: 'pending' });
    expect((await reserves()).map((r) => r.generation_id)).toEqual([resent?.generation_id]);
  });

  it('a cancel from another instance marks the intent; its sender reads the mark at its lease renewal and stops it unsent', async () => {
    const gateStore = new MemoryGateStore();
    const { client, nextWait } = watchedClient(gateStore);
    const store = new MemoryGenerationStore();
    const sender = createGenerationLedger({ client, store, instanceId: 'a', leaseMs: 300 });
    const other = createGenerationLedger({ client: plain(), store, instanceId: 'b', leaseMs: 300 });
    await fill(client);
    const waiting = nextWait();
    const submitting = sender.submit(OWNER, { model: 'image-fast', prompt: 'a swan' }, { idempotencyKey: 'remote' });
    await waiting;
    // B cannot know how far A's send got: it answers as if sent (never "not charged" when it may be).
    expect(await other.cancel(OWNER, 'remote')).toMatchObject({ outcome: 'abandoned', charged: true });
    expect(await submitting.catch((e: unknown) => e)).toBeInstanceOf(AbortError);
    expect(await other.cancel(OWNER, 'remote')).toMatchObject({ outcome: 'stopped', charged: false });
    await emu.faults.release();
    expect(await reserves()).toHaveLength(MAX_CONCURRENT);
  });

  it('a cancel racing the send, many times: stopped and not billed, or abandoned and billed once, never both', async () => {
    const { client, nextWait } = watchedClient();
    const reader = plain();
    const ledger: GenerationLedger = createGenerationLedger({ client, store: new MemoryGenerationStore() });
    const holding = await fill(client);
    const abandoned: string[] = [];
    let stopped = 0;
    let fillers = MAX_CONCURRENT;
    const ROUNDS = 24;
    for (let round = 0; round < ROUNDS; round++) {
      const key = `race-${round}`;
      const waiting = nextWait();
      const submitting = ledger.submit(OWNER, held(100 + round), { idempotencyKey: key });
      submitting.catch(() => {});
      await waiting; // in the gate: every slot is held
      await emu.faults.held({ min: MAX_CONCURRENT });
      await emu.faults.release(1);
      const freed = holding.shift() as string;
      await terminal(reader, freed);
      // The race: the slot is given back and the cancel starts, in orders that differ per round.
      const settling = client.gate!.settle(freed);
      let cancelling: ReturnType<GenerationLedger['cancel']>;
      switch (round % 4) {
        case 0:
          cancelling = ledger.cancel(OWNER, key);
          break;
        case 1:
          await settling;
          cancelling = ledger.cancel(OWNER, key);
          break;
        case 2:
          await settling;
          for (let i = 0; i < round; i++) await Promise.resolve();
          cancelling = ledger.cancel(OWNER, key);
          break;
        default:
          await settling;
          await new Promise((resolve) => setImmediate(resolve));
          cancelling = ledger.cancel(OWNER, key);
      }
      await settling;
      const answer = await cancelling;
      const outcome = await submitting.then(
        (g) => ({ sent: g.generation_id as string }),
        (error: unknown) => ({ error }),
      );
      if (answer?.outcome === 'stopped') {
        expect(answer.charged).toBe(false);
        expect('error' in outcome && outcome.error).toBeInstanceOf(AbortError);
        stopped++;
        holding.push((await client.generations.create(held(1000 + round))).generation_id);
        fillers++;
      } else {
        expect(answer).toMatchObject({ outcome: 'abandoned', charged: true, generation: { abandoned: true } });
        expect('sent' in outcome && outcome.sent).toBe(answer?.generation.generation_id);
        abandoned.push(answer?.generation.generation_id as string);
        holding.push(answer?.generation.generation_id as string);
      }
    }
    const billed = (await reserves()).map((r) => r.generation_id);
    expect(billed).toHaveLength(fillers + abandoned.length);
    for (const id of abandoned) expect(billed).toContain(id);
    expect(stopped + abandoned.length).toBe(ROUNDS);
    expect(stopped).toBeGreaterThan(0);
    expect(abandoned.length).toBeGreaterThan(0);
    // The reconciler resends none of the stopped ones.
    expect((await ledger.reconcile()).resent).toBe(0);
    expect((await reserves()).length).toBe(billed.length);
    await emu.faults.release();
  }, 60_000);
});
