import { randomUUID } from 'node:crypto';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, type GenerationLedger, type GenerationStore, ledgerSource } from '@mediagen/core/ledger';
import { createNodeHandler } from '@mediagen/core/node';
import { type BudgetStore, createMediaGenHandler, settleBudget } from '@mediagen/core/server';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from './listen.js';

export interface BudgetInstancesTarget {
  /** Shown in the test name: the store both instances share. */
  name: string;
  /** The budget store of each of the two instances: two stores (own connections) on the same data. */
  budgetStores(): Promise<[BudgetStore, BudgetStore]> | [BudgetStore, BudgetStore];
  /** Each instance's ledger store (the same data, or one each). */
  ledgerStores(): Promise<[GenerationStore, GenerationStore]> | [GenerationStore, GenerationStore];
  close?(): Promise<void> | void;
}

const KEY = 'svc_live_budget_instances';
const SECRET = 'whsec_budget_instances';
const ACCOUNT = 'acct_budget';
const USERS = ['ana', 'bo', 'cy', 'dee', 'ed', 'flo'];
/** Not a multiple of the price (4): the last 2 credits can never be spent. */
const CREDITS = 30;
const IN_FLIGHT = 4;
const PER_WAVE = 10;
/** Each wave's prompts per user: most complete (billed), some fail refunded, some are flagged (forfeited), one refused at submit. */
const PROMPTS = [
  'a fox',
  'a fox [[fail:model_unavailable]]',
  'a hare',
  'a fox [[flag]]',
  'a crow',
  'a fox [[blocked]]',
  'an owl',
  'a fox [[fail:unknown]]',
  'a lynx',
  'a mole',
];

interface Instance {
  origin: string;
  ledger: GenerationLedger;
  close(): Promise<void>;
}

/**
 * The proof that budgets hold across instances: two handlers on their own HTTP servers share
 * one budget store (Redis, PostgreSQL); many users submit in parallel through both, wave after
 * wave, against one emulator (whose webhooks reach the first instance only), until every user's
 * credits are spent. From the emulator's own account ledger, summed per user through the
 * handlers' ledgers (which owner made which generation): no user is billed one credit over their
 * budget, and each user's `GET /budget` equals what the emulator billed them, refunds and the
 * forfeited `CONTENT_POLICY_VIOLATION` included.
 */
export function describeBudgetAcrossInstances(target: BudgetInstancesTarget): void {
  describe(`budgets across two instances: ${target.name}`, () => {
    let emulator: RunningEmulator;
    const instances: Instance[] = [];

    beforeAll(async () => {
      const [budgetStores, ledgerStores] = [await target.budgetStores(), await target.ledgerStores()];
      // Servers first (the emulator's webhook names the first one), handlers once the emulator's address is known.
      const handles: ((req: never, res: never) => void)[] = [];
      const servers = await Promise.all([0, 1].map((i) => listen((req, res) => handles[i]!(req as never, res as never))));
      emulator = await startEmulator({
        port: 0,
        config: {
          // Renders in a hundredth of their time: each wave ends in a fraction of a second (nothing is timed by the test).
          timeScale: 0.01,
          accounts: [
            {
              id: ACCOUNT,
              // Pro: 5 generations at once for the account, fewer than the users may have in flight
              // (6 × 4): the service's own 429 CONCURRENCY_LIMIT comes in every wave, and the ledger
              // resends those intents later (billed then, within the user's reservation).
              tier: 'pro',
              balance: 100_000,
              keys: [{ key: KEY }],
              webhooks: [{ url: `${servers[0]!.origin}/api/webhooks/mediagen`, secret: SECRET }],
            },
          ],
        },
      });
      for (const i of [0, 1]) {
        const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
        // Wired as the production guide says: the reconciler running (it resends what the service
        // answered 429 or never answered) and its ends settling the budget, found by their key.
        const store = budgetStores[i]!;
        const ledger = createGenerationLedger({ client, store: ledgerStores[i]!, onTerminal: (g) => settleBudget(store, g) });
        ledger.start();
        const handler = createMediaGenHandler({
          client,
          basePath: '/api',
          identify: (request) => request.headers.get('x-user') ?? undefined,
          source: ledgerSource(ledger),
          webhook: { secrets: SECRET },
          budget: { store: budgetStores[i]!, limits: () => ({ creditsPerPeriod: CREDITS, periodMs: 86_400_000, inFlight: IN_FLIGHT }) },
          onError: (error) => process.env.BUDGET_STATS && console.error('onError', error),
        });
        handles[i] = createNodeHandler(handler) as never;
        instances.push({ origin: servers[i]!.origin, ledger, close: servers[i]!.close });
      }
    });

    afterAll(async () => {
      for (const instance of instances) {
        await instance.close();
        await instance.ledger.stop();
      }
      await emulator?.close();
      await target.close?.();
    });

    const submit = (origin: string, user: string, prompt: string) =>
      fetch(`${origin}/api/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': user, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ model: 'image-fast', prompt }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
    const budgetOf = async (user: string, origin = instances[0]!.origin) =>
      (await (await fetch(`${origin}/api/budget`, { headers: { 'x-user': user } })).json()) as Record<string, number | string | null>;

    it('no user is billed one credit over their budget, and each budget equals what the service billed', async () => {
      const answers: { user: string; status: number; body: Record<string, unknown> }[] = [];
      for (let wave = 0; wave < 30; wave++) {
        // Every user's whole wave at once, alternating between the two instances.
        const results = await Promise.all(
          USERS.flatMap((user) =>
            Array.from({ length: PER_WAVE }, (_, i) =>
              submit(instances[i % 2]!.origin, user, PROMPTS[(i + wave) % PROMPTS.length]!).then((r) => ({ user, ...r })),
            ),
          ),
        );
        answers.push(...results);
        // The wave's generations end and are settled (by the webhooks the first instance receives) before the next.
        await expect
          .poll(
            async () => (await Promise.all(USERS.map((u) => budgetOf(u, instances[wave % 2]!.origin)))).every((b) => b.in_flight === 0),
            // A bound on a loaded machine, not a race: the condition is what is awaited.
            { timeout: 120_000, interval: 50 },
          )
          .toBe(true);
        const left = await Promise.all(USERS.map((u) => budgetOf(u)));
        if (left.every((b) => Number(b.remaining_credits) < 4)) break;
      }

      // What the emulator billed, per generation, from its own account ledger.
      const account = (await emulator.accounts.get(ACCOUNT)) as unknown as { ledger: { amount: number; generation_id: string | null }[] };
      const billed = new Map<string, number>();
      for (const row of account.ledger) {
        if (row.generation_id) billed.set(row.generation_id, (billed.get(row.generation_id) ?? 0) - row.amount);
      }
      // Whose each generation is, from the two instances' ledgers.
      const ownerOf = new Map<string, string>();
      for (const user of USERS) {
        for (const { ledger } of instances) {
          for (const g of (await ledger.list(user, { limit: 100 })).generations) if (g.generation_id) ownerOf.set(g.generation_id, user);
        }
      }
      // Every accepted submit is a generation of its user; so is every intent answered 429 by the
      // service and resent by the ledger. Every bill is one of them.
      const accepted = answers.filter((a) => a.status === 202);
      expect(ownerOf.size).toBeGreaterThanOrEqual(accepted.length);
      expect([...billed.keys()].every((id) => ownerOf.has(id))).toBe(true);
      expect(answers.some((a) => a.status === 429 && a.body.error === 'CONCURRENCY_LIMIT')).toBe(true);

      for (const user of USERS) {
        const spent = [...billed].filter(([id]) => ownerOf.get(id) === user).reduce((sum, [, credits]) => sum + credits, 0);
        const budget = await budgetOf(user, instances[1]!.origin);
        // Never over by a single credit, and spent as far as the price allows (30 credits at 4 each: 28).
        expect({ user, spent }).toEqual({ user, spent: 28 });
        expect(budget).toMatchObject({ used_credits: spent, remaining_credits: CREDITS - spent, in_flight: 0 });
      }

      // The refusals: contract-shaped, with what is left; none of them reached the service.
      const overBudget = answers.find((a) => a.status === 402)!;
      expect(overBudget.body).toMatchObject({ error: 'USER_BUDGET_EXCEEDED', needed: 4, credits_per_period: CREDITS, request_id: null });
      expect(typeof overBudget.body.message).toBe('string');
      expect(typeof overBudget.body.next).toBe('string');
      expect(Number(overBudget.body.remaining_credits)).toBeLessThan(4);
      expect(Date.parse(String(overBudget.body.resets_at))).toBeGreaterThan(Date.now());
      const busy = answers.find((a) => a.status === 429 && a.body.error === 'USER_CONCURRENCY_LIMIT')!;
      expect(busy.body).toMatchObject({ error: 'USER_CONCURRENCY_LIMIT', max_concurrent: IN_FLIGHT, in_flight: IN_FLIGHT });
      // `[[blocked]]` is refused by the service at submit (400, nothing charged): its reservation was given back.
      expect(answers.some((a) => a.status === 400 && a.body.error === 'CONTENT_POLICY_VIOLATION')).toBe(true);
      const statuses = new Set(answers.map((a) => a.status));
      if (process.env.BUDGET_STATS)
        console.log(
          JSON.stringify({
            answers: answers.length,
            by: [...statuses].map((s) => [s, answers.filter((a) => a.status === s).length]),
            bills: billed.size,
            rows: account.ledger.length,
          }),
        );
      expect([...statuses].sort()).toEqual([202, 400, 402, 429]);
    }, 600_000); // up to 30 waves of 2 × 6 × 5 submits and their renders: minutes on a loaded machine
  });
}
