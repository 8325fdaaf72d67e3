import { afterEach, describe, expect, it } from 'vitest';
import { type Emu, emulator, expectErrorShape, KEY, proAccount, until } from './helpers.js';

let emu: Emu | null = null;
afterEach(async () => {
  await emu?.close();
  emu = null;
});

const ledger = async (e: Emu, id = 'acct_pro') => (await e.control('GET', `/accounts/${id}`)).body;

describe('pricing and the ledger', () => {
  it('202 body, catalog_default, reservation, X-Credits-Balance with thousands separators', async () => {
    emu = await emulator();
    const r = await emu.submit({ model: 'image-fast', prompt: 'x', number_results: 3 });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: 'pending', model: 'image-fast', credits_estimate: 12, pricing_source: 'catalog_default' });
    expect(r.body.generation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    expect(Date.parse(r.body.created_at)).not.toBeNaN();
    expect(r.headers.get('x-credits-balance')).toBe('14,988');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('239');
    const g = await emu.get(r.body.generation_id);
    expect(g.body.credits_used).toBe(12);
    const a = await ledger(emu);
    expect(a.ledger.map((l: { type: string; amount: number }) => [l.type, l.amount])).toEqual([
      ['grant', 15000],
      ['reserve', -12],
    ]);
  });

  it('user_override: N for the default request, other requests scaled from it', async () => {
    emu = await emulator({
      timeScale: 0.001,
      accounts: [proAccount({ pricingOverrides: { 'image-fast': 3, 'video-standard': 30 } }) as never],
    });
    const a = await emu.submit({ model: 'image-fast', prompt: 'x' });
    expect(a.body).toMatchObject({ credits_estimate: 3, pricing_source: 'user_override' });
    const b = await emu.submit({ model: 'image-fast', prompt: 'x', number_results: 4 });
    expect(b.body.credits_estimate).toBe(12);
    const v = await emu.submit({ model: 'video-standard', prompt: 'x', duration: 10, estimate: true });
    expect(v.body).toMatchObject({ credits_estimate: 60, pricing_source: 'user_override' });
    const c = await emu.submit({ model: 'image-pro', prompt: 'x', estimate: true });
    expect(c.body.pricing_source).toBe('catalog_default');
    const models = await emu.call('GET', '/api/v1/models');
    expect(models.body.models.find((m: { slug: string }) => m.slug === 'image-fast').credits_from).toBe(3);
    expect(models.body.models.find((m: { slug: string }) => m.slug === 'image-pro').credits_from).toBe(10);
  });

  it('estimate: same validation and price, nothing charged or dispatched', async () => {
    emu = await emulator();
    const r = await emu.submit({
      model: 'image-pro',
      prompt: 'x',
      quality: 'high',
      reference_images: ['https://a.example/1.png'],
      number_results: 2,
      estimate: true,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      estimate: true,
      model: 'image-pro',
      credits_estimate: 46,
      pricing_source: 'catalog_default',
      enhance_credits: 0,
      balance: 15000,
      sufficient: true,
    });
    expect(r.body.generation_id).toBeUndefined();
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    const e = await emu.submit({ model: 'image-fast', prompt: 'x', enhance: true, estimate: true });
    expect(e.body).toMatchObject({ credits_estimate: 4, enhance_credits: 20 });
    const a = await ledger(emu);
    expect(a.balance).toBe(15000);
    expect(a.ledger).toHaveLength(1);
    expect((await emu.control('GET', '/health')).body.generations).toBe(0);
  });

  it('402 INSUFFICIENT_CREDITS with balance and needed', async () => {
    emu = await emulator({ timeScale: 0.001, accounts: [proAccount({ balance: 30 }) as never] });
    const r = await emu.submit({ model: 'video-standard', prompt: 'x' });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ error: 'INSUFFICIENT_CREDITS', balance: 30, needed: 60 });
    expectErrorShape(r);
    const e = await emu.submit({ model: 'image-fast', prompt: 'x', enhance: true, number_results: 4 });
    expect(e.body).toMatchObject({ error: 'INSUFFICIENT_CREDITS', balance: 30, needed: 36 });
    expect((await ledger(emu)).balance).toBe(30);
  });

  it('refund on failure ([[fail:CODE]]), retryable per code', async () => {
    emu = await emulator();
    const a = await emu.submit({ model: 'image-fast', prompt: 'x [[fail:model_unavailable]]' });
    const b = await emu.submit({ model: 'image-fast', prompt: 'x [[fail:upstream_detail]]' });
    const ga = await emu.wait(a.body.generation_id);
    const gb = await emu.wait(b.body.generation_id);
    expect(ga.body).toMatchObject({
      status: 'failed',
      credits_used: 0,
      output_url: null,
      output_urls: null,
      error: { code: 'model_unavailable', retryable: true },
    });
    expect(gb.body.error).toMatchObject({ code: 'upstream_detail', retryable: false });
    expect(typeof gb.body.error.message).toBe('string');
    const acct = await ledger(emu);
    expect(acct.balance).toBe(15000);
    expect(acct.spent).toBe(0);
    expect(acct.ledger.filter((l: { type: string }) => l.type === 'refund')).toHaveLength(2);
  });

  it('forfeit on CONTENT_POLICY_VIOLATION ([[flag]])', async () => {
    emu = await emulator();
    const a = await emu.submit({ model: 'image-fast', prompt: 'x [[flag]]' });
    const g = await emu.wait(a.body.generation_id);
    expect(g.body).toMatchObject({
      status: 'failed',
      credits_used: 4,
      output_url: null,
      error: { code: 'CONTENT_POLICY_VIOLATION', retryable: false },
    });
    const acct = await ledger(emu);
    expect(acct.balance).toBe(14996);
    expect(acct.ledger.map((l: { type: string }) => l.type)).toEqual(['grant', 'reserve', 'forfeit']);
  });

  it('enhance billed 20 in the background, refunded when the fit fails', async () => {
    emu = await emulator();
    const a = await emu.submit({ model: 'image-fast', prompt: 'x', enhance: true });
    expect(a.body.credits_estimate).toBe(4);
    expect(a.headers.get('x-credits-balance')).toBe('14,996');
    const g = await emu.wait(a.body.generation_id);
    expect(g.body.credits_used).toBe(4);
    expect((await ledger(emu)).balance).toBe(14976);
    const b = await emu.submit({ model: 'image-fast', prompt: 'x [[enhance:fail]]', enhance: true });
    await emu.wait(b.body.generation_id);
    const acct = await ledger(emu);
    expect(acct.balance).toBe(14972);
    expect(
      acct.ledger
        .filter((l: { generation_id: string }) => l.generation_id === b.body.generation_id)
        .map((l: { type: string; amount: number }) => [l.type, l.amount]),
    ).toEqual([
      ['reserve', -4],
      ['enhance', -20],
      ['enhance_refund', 20],
    ]);
  });

  it('text-writer: final charge adjusted below the reservation on completion', async () => {
    emu = await emulator();
    const a = await emu.submit({ model: 'text-writer', prompt: 'tagline', seed: 3 });
    expect(a.body.credits_estimate).toBe(8);
    const g = await emu.wait(a.body.generation_id);
    expect(g.body.status).toBe('completed');
    expect(g.body.credits_used).toBeLessThan(8);
    expect(g.body.credits_used).toBeGreaterThan(0);
    const acct = await ledger(emu);
    const adjust = acct.ledger.find((l: { type: string }) => l.type === 'adjust');
    expect(adjust.amount).toBe(8 - g.body.credits_used);
    expect(acct.balance).toBe(15000 - g.body.credits_used);
  });

  it('credit budget per 30-day cycle, cleared by the next cycle', async () => {
    emu = await emulator({
      timeScale: 0.0001,
      accounts: [proAccount({ balance: 40000, pricingOverrides: { 'image-fast': 5000 } }) as never],
    });
    for (let i = 0; i < 3; i++) {
      const r = await emu.submit({ model: 'image-fast', prompt: 'x' });
      expect(r.status).toBe(202);
      await emu.wait(r.body.generation_id);
    }
    const r = await emu.submit({ model: 'image-fast', prompt: 'x' });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({
      error: 'INSUFFICIENT_CREDITS',
      reason: 'cycle_budget',
      balance: 25000,
      needed: 5000,
      cycle_budget: 15000,
      spent_this_cycle: 15000,
    });
    const credits = await emu.call('GET', '/api/v1/credits');
    expect(credits.body.spent_this_cycle).toBe(15000);
    await emu.control('POST', '/clock', { advanceMs: 30 * 86_400_000 + 1000 });
    const after = await emu.call('GET', '/api/v1/credits');
    expect(after.body.spent_this_cycle).toBe(0);
    expect((await emu.submit({ model: 'image-fast', prompt: 'x' })).status).toBe(202);
  });
});

describe('limits', () => {
  it('429 RATE_LIMIT after the tier’s submits per minute, with Retry-After; estimates have their own doubled window', async () => {
    emu = await emulator();
    // In parallel batches: 720 one-by-one requests can outlast the test's timeout on a loaded 2-core CI machine.
    const burst = async (n: number, body: Record<string, unknown>) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i += 40) {
        const batch = Array.from({ length: Math.min(40, n - i) }, () => emu!.submit(body));
        statuses.push(...(await Promise.all(batch)).map((r) => r.status));
      }
      return statuses;
    };
    expect(new Set(await burst(240, { model: 'nope' }))).toEqual(new Set([422]));
    const r = await emu.submit({ model: 'image-fast', prompt: 'x' });
    expect(r.status).toBe(429);
    expect(r.body.error).toBe('RATE_LIMIT');
    expectErrorShape(r);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    // quotes are tracked separately, at double the limit
    expect(new Set(await burst(480, { model: 'image-fast', prompt: 'x', estimate: true }))).toEqual(new Set([200]));
    const q = await emu.submit({ model: 'image-fast', prompt: 'x', estimate: true });
    expect(q.status).toBe(429);
    expect(q.body.error).toBe('RATE_LIMIT');
    await emu.control('POST', '/clock', { advanceMs: 61_000 });
    expect((await emu.submit({ model: 'image-fast', prompt: 'x' })).status).toBe(202);
  }, 60_000);

  it('429 CONCURRENCY_LIMIT with in_flight and max_concurrent, cleared when a job ends', async () => {
    // `[[hold]]`: none of the five ends until released, however slowly the six submits go out.
    emu = await emulator({ timeScale: 0.001, accounts: [proAccount() as never] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await emu.submit({ model: 'image-fast', prompt: 'x [[hold]]' });
      expect(r.status).toBe(202);
      ids.push(r.body.generation_id);
    }
    const r = await emu.submit({ model: 'image-fast', prompt: 'x' });
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ error: 'CONCURRENCY_LIMIT', in_flight: 5, max_concurrent: 5 });
    expectErrorShape(r);
    expect((await ledger(emu)).in_flight).toBe(5);
    expect((await emu.control('POST', '/faults/release', { count: 1 })).body.released).toBe(1);
    await emu.wait(ids[0] as string);
    await until(async () => (await emu!.submit({ model: 'image-fast', prompt: 'x' })).status === 202);
  });
});

describe('idempotency', () => {
  it('rule 1: same key, same body: the original response, unbilled', async () => {
    emu = await emulator();
    const h = { 'idempotency-key': 'k1' };
    const a = await emu.submit({ model: 'image-fast', prompt: 'x', seed: 1 }, { headers: h });
    const b = await emu.submit({ seed: 1, prompt: 'x', model: 'image-fast' }, { headers: h });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('x-request-id')).toBe(a.body.request_id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const acct = await ledger(emu);
    expect(acct.ledger.filter((l: { type: string }) => l.type === 'reserve')).toHaveLength(1);
  });

  it('rule 2: same key, different body: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    emu = await emulator();
    const h = { 'idempotency-key': 'k2' };
    await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    const r = await emu.submit({ model: 'image-fast', prompt: 'y' }, { headers: h });
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('IDEMPOTENCY_KEY_REUSED');
    expectErrorShape(r);
  });

  it('rule 3: same key while the first is being enqueued: 409 with Retry-After: 3', async () => {
    emu = await emulator();
    // The first is held inside the emulator, its key claimed, until the test releases it.
    await emu.control('POST', '/faults', { endpoint: 'generate', count: 1, hold: true });
    const h = { 'idempotency-key': 'k3' };
    const first = emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    expect((await emu.control('GET', '/faults/held?min=1')).body.held).toHaveLength(1);
    const second = await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    expect(second.status).toBe(409);
    expect(second.body.error).toBe('IDEMPOTENT_REQUEST_IN_FLIGHT');
    expect(second.headers.get('retry-after')).toBe('3');
    expectErrorShape(second);
    expect((await emu.control('POST', '/faults/release')).body.released).toBe(1);
    expect((await first).status).toBe(202);
    const third = await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    expect(third.body.generation_id).toBe((await first).body.generation_id);
  });

  it('rule 4: without a key every retry is a new, separately billed generation', async () => {
    emu = await emulator();
    const a = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const b = await emu.submit({ model: 'image-fast', prompt: 'x' });
    expect(a.body.generation_id).not.toBe(b.body.generation_id);
    expect((await ledger(emu)).balance).toBe(15000 - 8);
  });

  it('a refused request frees its key; keys are scoped per account', async () => {
    emu = await emulator({
      timeScale: 0.001,
      accounts: [proAccount() as never, { id: 'acct_b', tier: 'pro', balance: 100, keys: [{ key: 'svc_live_b' }] }],
    });
    const h = { 'idempotency-key': 'k5' };
    expect((await emu.submit({ model: 'image-fast' }, { headers: h })).status).toBe(422);
    expect((await emu.submit({ model: 'image-fast', prompt: 'fixed' }, { headers: h })).status).toBe(202);
    const other = await emu.submit({ model: 'image-fast', prompt: 'other' }, { key: 'svc_live_b', headers: h });
    expect(other.status).toBe(202);
    expect(KEY).not.toBe('svc_live_b');
  });

  it("a fault with when 'after' bills the generation and loses the response; the keyed retry gets the original", async () => {
    emu = await emulator();
    await emu.control('POST', '/faults', { endpoint: 'generate', count: 1, status: 500, code: 'INTERNAL_ERROR', when: 'after' });
    const h = { 'idempotency-key': 'k6' };
    const lost = await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    expect(lost.status).toBe(500);
    expect(lost.body.error).toBe('INTERNAL_ERROR');
    expectErrorShape(lost);
    const acct = await ledger(emu);
    expect(acct.balance).toBe(14996);
    const retry = await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    expect(retry.status).toBe(202);
    expect(acct.ledger.filter((l: { type: string }) => l.type === 'reserve')).toHaveLength(1);
    expect((await ledger(emu)).balance).toBe(14996);
  });
});
