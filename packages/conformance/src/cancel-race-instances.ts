import { randomUUID } from 'node:crypto';
import { Gate, type GateStore, MediaGenClient, MemoryGateStore } from '@mediagen/core';
import { createGenerationLedger, type GenerationLedger, type GenerationStore, ledgerSource } from '@mediagen/core/ledger';
import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler, queueGateStore } from '@mediagen/core/server';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from './listen.js';

export interface CancelRaceInstancesTarget {
  /** Shown in the test name: the store both instances share. */
  name: string;
  /**
   * What the two instances share, and so where the cancel races the send:
   * - `ledger`: one ledger store (the same data through two connections). The submit waits in
   *   the first instance's gate; the cancel arrives at the second, which did not submit it.
   * - `gate`: one gate store (`gateStores`), each instance its own ledger. The submit waits in the
   *   shared gate on the first instance while a slot frees on the second; the cancel (its
   *   `ledger.cancel` through the route, or the submit's own signal) comes to the first, whose ledger has it.
   */
  shares: 'ledger' | 'gate';
  /** Each instance's ledger store: two connections to the same data for `ledger`, one each for `gate`. */
  ledgerStores(): Promise<[GenerationStore, GenerationStore]> | [GenerationStore, GenerationStore];
  /** With `shares: 'gate'`: each instance's gate store, own connection, the same data (a short poll keeps rounds short). */
  gateStores?(): Promise<[GateStore, GateStore]> | [GateStore, GateStore];
  close?(): Promise<void> | void;
  /** Races run; each is a fraction of a second. Default 60. */
  rounds?: number;
  /** A known failure that keeps this target from landing, in words: the suite is skipped and says so. */
  knownFailure?: string;
}

const KEY = 'svc_live_cancel_race_instances';
const ACCOUNT = 'acct_cancel_race';
const MAX_CONCURRENT = 5; // the pro tier's
/** Short, so the submitting instance reads a cancel mark from the other within a few tens of ms (a third of this). */
const LEASE_MS = 150;
const STOPPED = { outcome: 'stopped', charged: false };
const ABANDONED = { outcome: 'abandoned', charged: true };
/** A bound on a loaded machine, not a race: each condition below is what is awaited. */
const BOUND = { timeout: 20_000, interval: 10 };

interface Instance {
  origin: string;
  client: MediaGenClient;
  ledger: GenerationLedger;
  close(): Promise<void>;
}

/** How the cancel meets the freeing slot in a round: the last two fix the outcome, the rest race. */
const ORDERS = ['cancel-then-free', 'together', 'free-then-cancel', 'free-then-yield-then-cancel', 'sent-then-cancel', 'stopped-then-free'];

/**
 * The proof that a cancel racing the send is resolved one way or the other across instances,
 * never both: a submit waits for a gate slot on one instance while a slot frees and a cancel
 * arrives (at the other instance when the ledger is shared; at the submitting one, through its
 * route or its signal, when the gate is). Each round ends `stopped` (no generation, ABORTED) or
 * sent (a generation id), and the emulator's own account ledger must hold exactly one
 * reservation per sent submit and per slot filler, none for a stopped one. A cancel answered
 * `charged: false` must be a stopped submit. Both outcomes are met (two orders force them).
 */
export function describeCancelRaceAcrossInstances(target: CancelRaceInstancesTarget): void {
  const suite = target.knownFailure ? describe.skip : describe;
  const rounds = target.rounds ?? 60;
  suite(`cancel racing the send across two instances: ${target.name}${target.knownFailure ? ` (skipped: ${target.knownFailure})` : ''}`, () => {
    let emulator: RunningEmulator;
    const instances: Instance[] = [];
    const reported: unknown[] = [];

    beforeAll(async () => {
      const ledgerStores = await target.ledgerStores();
      const gateStores = target.shares === 'gate' ? await target.gateStores?.() : undefined;
      if (target.shares === 'gate' && !gateStores) throw new Error('shares: gate needs gateStores()');
      emulator = await startEmulator({
        port: 0,
        // Renders in a thousandth of their time; the racing submits and fillers hold until released.
        config: { timeScale: 0.001, accounts: [{ id: ACCOUNT, tier: 'pro', balance: 10_000_000, keys: [{ key: KEY }] }] },
      });
      for (const i of [0, 1]) {
        const gate = new Gate({ store: gateStores?.[i] ?? queueGateStore(new MemoryGateStore({ pollMs: 20 })) });
        const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0, gate });
        const ledger = createGenerationLedger({ client, store: ledgerStores[i]!, leaseMs: LEASE_MS, instanceId: `instance-${i}` });
        const handler = createMediaGenHandler({
          client,
          basePath: '/api',
          identify: (request) => request.headers.get('x-user') ?? undefined,
          source: ledgerSource(ledger),
          // A stopped submit's abort is reported here, as expected; anything else fails the test.
          onError: (error) => reported.push(error),
        });
        const server = await listen(createNodeHandler(handler) as never);
        instances.push({ origin: server.origin, client, ledger, close: server.close });
      }
    });

    afterAll(async () => {
      await emulator?.faults.release();
      for (const instance of instances) {
        await instance.close();
        await instance.ledger.stop();
      }
      await emulator?.close();
      await target.close?.();
    });

    const held = (what: string) => ({ model: 'image-fast', prompt: `[[hold]] ${what}` }) as const;
    /** Reservations the account was billed: one per generation the emulator accepted. */
    const reserves = async () => (await emulator.accounts.get(ACCOUNT)).ledger.filter((row) => row.type === 'reserve');

    it(`${rounds} races, each stopped and never billed or sent and billed once, counted from the emulator's ledger`, async () => {
      const [submitter, other] = instances as [Instance, Instance];
      // Whose gate the slots are taken and freed in, and which instance the cancel route is asked on.
      const slots = target.shares === 'gate' ? other : submitter;
      const canceller = target.shares === 'ledger' ? other : submitter;
      const reader = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
      /** The generations holding the slots, oldest first (the order the emulator releases them). */
      const holding: string[] = [];
      const fillers: string[] = [];
      const fill = async (what: string) => {
        const id = (await slots.client.generations.create(held(what))).generation_id;
        holding.push(id);
        fillers.push(id);
      };
      for (let i = 0; i < MAX_CONCURRENT; i++) await fill(`filler ${i}`);

      const sent: string[] = [];
      let stopped = 0;
      const seen = new Set<string>();
      /** Outcomes per order, for CANCEL_RACE_STATS. */
      const byOrder: Record<string, { stopped: number; sent: number }> = {};
      for (let round = 0; round < rounds; round++) {
        const owner = `user-${round}`;
        const key = randomUUID();
        const order = ORDERS[round % ORDERS.length]!;
        // With a shared gate, every other round stops the submit by its own signal (an app's abort).
        const bySignal = target.shares === 'gate' && Math.floor(round / ORDERS.length) % 2 === 1;
        const stop = new AbortController();
        const submitting = bySignal
          ? submitter.ledger
              .submit(owner, held(`race ${round}`), { idempotencyKey: key, signal: stop.signal })
              .then((g) => ({ status: 202, id: g.generation_id }))
              .catch(() => ({ status: 0, id: null }))
          : fetch(`${submitter.origin}/api/generations`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-user': owner, 'idempotency-key': key },
              body: JSON.stringify(held(`race ${round}`)),
            }).then(async (r) => ({ status: r.status, id: ((await r.json()) as { generation_id?: string }).generation_id ?? null }));
        const record = async () => (await submitter.ledger.list(owner, { limit: 5 })).generations[0];
        // Recorded as an intent, and held before its send point: every slot is taken.
        await expect.poll(async () => (await record())?.status, BOUND).toBe('pending');

        let answer: { outcome?: string; charged?: boolean } | undefined;
        const cancel = async () => {
          if (bySignal) return stop.abort();
          const response = await fetch(`${canceller.origin}/api/generations/${key}/cancel`, {
            method: 'POST',
            headers: { 'x-user': owner },
          });
          expect(response.status).toBe(200);
          answer = (await response.json()) as typeof answer;
        };
        // Frees the oldest slot at the service (ended there for real), then in the gate.
        const freeing = async () => {
          await emulator.faults.held({ min: MAX_CONCURRENT });
          await emulator.faults.release(1);
          const freed = holding.shift()!;
          await expect.poll(async () => (await reader.generations.get(freed)).status, BOUND).toBe('completed');
          return freed;
        };
        const settled = () =>
          expect.poll(async () => ((r) => r && (r.generation_id !== null || r.status === 'failed'))(await record()), BOUND);
        switch (order) {
          case 'cancel-then-free': {
            const freed = await freeing();
            await cancel();
            // Store reads in between, more each round: the slot frees at points spread over the
            // submitting instance's lease renewal (where it reads the mark), no timer involved.
            for (let i = 0; i < (round % 12) * 3; i++) await record();
            await slots.client.gate!.settle(freed);
            break;
          }
          case 'together': {
            const freed = await freeing();
            await Promise.all([cancel(), slots.client.gate!.settle(freed)]);
            break;
          }
          case 'free-then-cancel': {
            const freed = await freeing();
            await slots.client.gate!.settle(freed);
            await cancel();
            break;
          }
          case 'free-then-yield-then-cancel': {
            const freed = await freeing();
            await slots.client.gate!.settle(freed);
            await new Promise((resolve) => setImmediate(resolve));
            await cancel();
            break;
          }
          case 'sent-then-cancel': {
            const freed = await freeing();
            await slots.client.gate!.settle(freed);
            await expect.poll(async () => (await record())?.generation_id ?? null, BOUND).not.toBeNull();
            await cancel();
            break;
          }
          default: {
            // stopped-then-free: the mark (or abort) is seen before any slot frees.
            await cancel();
            await expect.poll(async () => (await record())?.status, BOUND).toBe('failed');
            await slots.client.gate!.settle(await freeing());
          }
        }
        await settled().toBe(true);
        const final = (await record())!;
        const reply = await submitting;
        if (final.generation_id === null) {
          // Stopped: never sent, so never billed; the submit's own answer says it was not accepted.
          expect(final).toMatchObject({ status: 'failed', error: { code: 'ABORTED' } });
          expect(reply.status).not.toBe(202);
          // Asked where it was sending, the answer is exact; asked elsewhere, it cannot know how far
          // the send got and says billed (never "nothing charged" for what may be charged).
          if (answer) expect(answer).toMatchObject(canceller === submitter ? STOPPED : ABANDONED);
          stopped++;
          (byOrder[order] ??= { stopped: 0, sent: 0 }).stopped++;
          // The slot it did not take is held again, so the next round waits in the gate too.
          await fill(`refill ${round}`);
        } else {
          // Sent: billed, and the cancel could only stop following it.
          if (answer) expect(answer).toMatchObject(ABANDONED);
          if (reply.status === 202) expect(reply.id).toBe(final.generation_id);
          expect(seen.has(final.generation_id)).toBe(false);
          seen.add(final.generation_id);
          sent.push(final.generation_id);
          (byOrder[order] ??= { stopped: 0, sent: 0 }).sent++;
          holding.push(final.generation_id);
        }
      }

      if (process.env.CANCEL_RACE_STATS) console.log(JSON.stringify({ store: target.name, stopped, sent: sent.length, byOrder }));
      const billed = (await reserves()).map((r) => r.generation_id);
      // One bill per filler and per sent submit, nothing else: a stopped one billed nothing, none twice.
      expect(billed.slice().sort()).toEqual([...fillers, ...sent].sort());
      expect(stopped + sent.length).toBe(rounds);
      // Both outcomes were met (the race is real), neither counted twice.
      expect(stopped).toBeGreaterThan(0);
      expect(sent.length).toBeGreaterThan(0);
      // The handlers reported the stopped submits' aborts and nothing else.
      for (const error of reported) expect((error as { code?: unknown }).code).toBe('ABORTED');
    }, 120_000);
  });
}
