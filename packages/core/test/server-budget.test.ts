import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createGenerationLedger, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { type BudgetLimits, createMediaGenHandler, MemoryBudgetStore, settleBudget } from '../src/server';
import { completedDelivery } from './support/completion';
import { ledgerEmulator } from './support/ledger-emulator';

const emu = await ledgerEmulator();
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const BASE = 'http://app.test/api';
const submit = (user: string, key: string, prompt = 'a fox') =>
  new Request(`${BASE}/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-user': user, 'idempotency-key': key },
    body: JSON.stringify({ model: 'image-fast', prompt }),
  });
const read = (user: string, path: string) => new Request(BASE + path, { headers: { 'x-user': user } });

/** A handler on the ledger with a budget in memory, on a clock the test moves. */
function app(limits: BudgetLimits, options: { settleOnTerminal?: boolean; webhookSecret?: string } = {}) {
  const clock = { now: Date.UTC(2026, 0, 10, 12) };
  const store = new MemoryBudgetStore();
  const client = emu.client({ maxRetries: 0 });
  const ledger = createGenerationLedger({
    client,
    store: new MemoryGenerationStore(),
    onTerminal: options.settleOnTerminal ? (generation) => settleBudget(store, generation, clock.now) : undefined,
  });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source: ledgerSource(ledger),
    budget: { store, limits: () => limits, now: () => clock.now },
    ...(options.webhookSecret && { webhook: { secrets: options.webhookSecret } }),
    onError: () => {},
  });
  const budget = async (user: string) => (await handler(read(user, '/budget'))).json() as Promise<Record<string, unknown>>;
  return { handler, ledger, clock, budget };
}

describe('budgets on the one handler', () => {
  it('GET /budget: 404 without the option, 401 with no user, the limits and what is left with it', async () => {
    const plain = createMediaGenHandler({ client: emu.client() });
    expect(plain.route('GET', '/budget')).toBeUndefined();
    const none = await plain(new Request('http://app.test/budget'));
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({ error: 'NOT_FOUND', next: expect.any(String) });

    const { handler, budget } = app({ creditsPerPeriod: 10, periodMs: 86_400_000, inFlight: 2, submitsPerMinute: 5 });
    expect(handler.route('GET', '/api/budget')).toBe('budget');
    expect((await handler(new Request(`${BASE}/budget`))).status).toBe(401);
    expect(await budget('ana')).toEqual({
      owner: 'ana',
      limited: true,
      credits_per_period: 10,
      used_credits: 0,
      remaining_credits: 10,
      resets_at: '2026-01-11T00:00:00.000Z',
      submits_per_minute: 5,
      submits_last_minute: 0,
      in_flight: 0,
      max_concurrent: 2,
      minute_frees_at: null,
    });
  });

  it('submits per minute: the one past the limit is 429 USER_RATE_LIMIT with Retry-After, and never sent', async () => {
    const { handler, clock, budget } = app({ submitsPerMinute: 2 });
    expect((await handler(submit('bo', 'k1'))).status).toBe(202);
    clock.now += 20_000;
    expect((await handler(submit('bo', 'k2'))).status).toBe(202);
    const refused = await handler(submit('bo', 'k3'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(await refused.json()).toMatchObject({
      error: 'USER_RATE_LIMIT',
      submits_per_minute: 2,
      submits_last_minute: 2,
      request_id: null,
    });
    expect(await emu.reserves()).toHaveLength(2);
    // Another user is not held by bo's minute; bo's is free once the first submit leaves it.
    expect((await handler(submit('cy', 'k3'))).status).toBe(202);
    clock.now += 40_001;
    expect((await handler(submit('bo', 'k3'))).status).toBe(202);
    expect(await budget('bo')).toMatchObject({ submits_last_minute: 2 });
  });

  it('a submit whose answer was lost keeps its reservation; its resend with the same key counts nothing twice', async () => {
    const { handler, budget } = app({ creditsPerPeriod: 100 });
    // The estimate goes through; the submit is billed and its answer lost.
    await emu.fault([
      { endpoint: 'generate', count: 1 },
      { endpoint: 'generate', status: 500, when: 'after' },
    ]);
    const lost = await handler(submit('dee', 'same'));
    expect(lost.status).toBe(500);
    expect(await budget('dee')).toMatchObject({ used_credits: 4, in_flight: 1 });
    const resent = await handler(submit('dee', 'same'));
    expect(resent.status).toBe(202);
    const { generation_id: id } = (await resent.json()) as { generation_id: string };
    expect(await emu.reserves()).toEqual([id]);
    expect(await budget('dee')).toMatchObject({ used_credits: 4, in_flight: 1, submits_last_minute: 1 });
    // A read that finds it ended settles it.
    await emu.settled(id);
    expect((await handler(read('dee', `/generations/${id}`))).status).toBe(200);
    expect(await budget('dee')).toMatchObject({ used_credits: 4, in_flight: 0 });
  });

  it("a resend refused for its changed body (IDEMPOTENCY_KEY_REUSED) keeps the first attempt's reservation: it was billed", async () => {
    const { handler, budget } = app({ creditsPerPeriod: 100 });
    const first = await handler(submit('gus', 'same', 'a fox'));
    expect(first.status).toBe(202);
    const changed = await handler(submit('gus', 'same', 'a hare'));
    expect(changed.status).toBe(422);
    expect(await changed.json()).toMatchObject({ error: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await budget('gus')).toMatchObject({ used_credits: 4, in_flight: 1 });
  });

  it('a submit the service refuses for good gives its reservation back', async () => {
    const { handler, budget } = app({ creditsPerPeriod: 4, inFlight: 1 });
    await emu.fault([
      { endpoint: 'generate', count: 1 },
      { endpoint: 'generate', status: 422, code: 'INVALID_BODY' },
    ]);
    expect((await handler(submit('ed', 'k1'))).status).toBe(422);
    expect(await budget('ed')).toMatchObject({ used_credits: 0, in_flight: 0, submits_last_minute: 1 });
    expect((await handler(submit('ed', 'k2'))).status).toBe(202);
    const over = await handler(submit('ed', 'k3'));
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ error: 'USER_CONCURRENCY_LIMIT', in_flight: 1, max_concurrent: 1 });
  });

  it("the ledger's onTerminal settles with settleBudget (no webhook, no read): refunded failures give their credits back", async () => {
    const { handler, ledger, budget } = app({ creditsPerPeriod: 12 }, { settleOnTerminal: true });
    const ids: string[] = [];
    for (const [key, prompt] of [
      ['k1', 'a fox'],
      ['k2', 'a fox [[fail:model_unavailable]]'],
      ['k3', 'a fox [[flag]]'],
    ]) {
      const answer = await handler(submit('flo', key!, prompt));
      expect(answer.status).toBe(202);
      ids.push(((await answer.json()) as { generation_id: string }).generation_id);
    }
    const spent = await handler(submit('flo', 'k4'));
    expect(spent.status).toBe(402);
    expect(await spent.json()).toMatchObject({ error: 'USER_BUDGET_EXCEEDED', needed: 4, remaining_credits: 0, credits_per_period: 12 });
    // The ledger follows each to its end (as its reconciler would), and hands each end over once.
    for (const id of ids) await ledger.wait('flo', id);
    expect((await budget('flo')).in_flight).toBe(0);
    // Completed 4 + refunded 0 + forfeited (CONTENT_POLICY_VIOLATION) 4.
    expect(await budget('flo')).toMatchObject({ used_credits: 8, remaining_credits: 4 });
    expect((await handler(submit('flo', 'k5'))).status).toBe(202);
  });

  it("a submit answered 429 by the service (the ledger resends it later) is settled by its end's webhook: the ledger's record names its key", async () => {
    // Found under CI load: the account's own concurrency limit answered 429 to a submit whose
    // reservation stood; the ledger's resend got the generation, and its end's webhook found no
    // reservation bound to its id. No onTerminal and no read here: only the webhook.
    const secret = 'whsec_budget_resend';
    const { handler, ledger, budget } = app({ creditsPerPeriod: 100, inFlight: 2 }, { webhookSecret: secret });
    await emu.fault([
      { endpoint: 'generate', count: 1 },
      { endpoint: 'generate', status: 429, code: 'CONCURRENCY_LIMIT' },
    ]);
    const busy = await handler(submit('hal', 'k1'));
    expect(busy.status).toBe(429);
    // Not a refusal the ledger gives up on: the intent stays and may yet be billed, so its reservation stands.
    expect(await budget('hal')).toMatchObject({ used_credits: 4, in_flight: 1 });
    expect(await emu.reserves()).toEqual([]);

    // The reconciler's passes resend the intent with its own key once it is due (a second after
    // the 429); the service accepts it. (A condition awaited, with a bound for a loaded machine.)
    await expect
      .poll(
        async () => {
          await ledger.reconcile();
          return (await emu.reserves()).length;
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(1);
    const [id] = await emu.reserves();
    expect(id).toMatch(/\S/);
    await emu.settled(id!);

    // The end arrives as the service's webhook, through the handler.
    const delivered = await handler(new Request(`${BASE}/webhooks/mediagen`, await completedDelivery(id!, secret)));
    expect(delivered.status).toBe(200);
    expect(await budget('hal')).toMatchObject({ used_credits: 4, in_flight: 0 });
  });
});
