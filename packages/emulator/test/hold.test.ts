/**
 * The `hold` fault: a request held inside the emulator until the test lets it go, so a test
 * orders two requests by events it controls (held, released) instead of by a delay. Bounded:
 * a reset or close ends what is held, and a hold lasts at most FAULT_MAX_DELAY_MS (hold-caps.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, EmulatorControlError, type InProcessEmulator } from '../src/index.js';
import { emulator, KEY, type Res, sharedEmulator } from './helpers.js';

const emu = await sharedEmulator();

const held = async (min?: number) => (await emu.control('GET', `/faults/held${min === undefined ? '' : `?min=${min}`}`)).body.held;
const release = (body: Record<string, unknown> = {}) => emu.control('POST', '/faults/release', body);
const account = async () => (await emu.control('GET', '/accounts/acct_pro')).body;
/** Settles to the response, or to the error a dropped connection gives. */
const settle = (p: Promise<Res>) =>
  p.then(
    (r) => r,
    (e: unknown) => e as Error,
  );

describe('hold: validation', () => {
  it.each([[{ hold: 'yes' }], [{ hold: 1 }], [{ hold: null }], [[{ hold: true }, { hold: 0 }]]])(
    'POST /faults %j is 422 naming the fault and adds nothing',
    async (body) => {
      const r = await emu.control('POST', '/faults', body);
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'fault' } });
      expect(r.body.message).toContain('hold');
      expect((await emu.control('GET', '/faults')).body.faults).toEqual([]);
    },
  );

  it('a valid hold is listed with its other fields; hold defaults to false', async () => {
    const r = await emu.control('POST', '/faults', [{ endpoint: 'generate', hold: true }, { endpoint: 'models' }]);
    expect(r.status).toBe(201);
    expect(r.body.faults).toMatchObject([
      { endpoint: 'generate', hold: true, count: 1, when: 'before', delayMs: 0 },
      { endpoint: 'models', hold: false },
    ]);
  });

  it.each(['-1', '1.5', 'abc', '1e3', '99999999999', '1000001'])('GET /faults/held?min=%s is 422 naming min', async (min) => {
    const r = await emu.control('GET', `/faults/held?min=${min}`);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'min' } });
  });

  it.each([[{ count: 0 }], [{ count: 1.5 }], [{ count: '1' }], [{ count: 1e300 }], [{ all: true }]])(
    'POST /faults/release %j is 422 and releases nothing',
    async (body) => {
      await emu.control('POST', '/faults', { endpoint: 'credits', hold: true });
      const pending = settle(emu.call('GET', '/api/v1/credits'));
      expect(await held(1)).toHaveLength(1);
      const r = await release(body);
      expect(r.status).toBe(422);
      expect(r.body.error).toBe('INVALID_BODY');
      expect(await held()).toHaveLength(1);
      expect((await release()).body.released).toBe(1);
      expect(((await pending) as Res).status).toBe(200);
    },
  );

  it('nothing held: the list is empty at once and a release releases nothing', async () => {
    expect(await held()).toEqual([]);
    expect(await held(0)).toEqual([]);
    expect((await release()).body).toMatchObject({ released: 0, held: [] });
  });
});

describe('hold: release', () => {
  it('holds the request until released; its request id is listed; then it answers as usual', async () => {
    await emu.control('POST', '/faults', { endpoint: 'credits', hold: true });
    let answered = false;
    const pending = emu.call('GET', '/api/v1/credits').then((r) => ((answered = true), r));
    const list = await held(1);
    expect(list).toEqual([{ endpoint: 'credits', request_id: expect.stringMatching(/^req_/) }]);
    // The fault was consumed when the request met it; the next request is not held.
    expect((await emu.control('GET', '/faults')).body.faults).toEqual([]);
    expect((await emu.call('GET', '/api/v1/credits')).status).toBe(200);
    expect(answered).toBe(false);
    expect((await release()).body).toMatchObject({ released: 1, held: [] });
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe(list[0].request_id);
  });

  it('count releases the oldest first; the rest stay held', async () => {
    await emu.control('POST', '/faults', { endpoint: 'models', hold: true, count: 2 });
    const first = emu.call('GET', '/api/v1/models');
    const [a] = await held(1);
    const second = emu.call('GET', '/api/v1/models');
    const both = await held(2);
    expect(both[0]).toEqual(a);
    expect((await release({ count: 1 })).body).toMatchObject({ released: 1, held: [both[1]] });
    expect((await first).headers.get('x-request-id')).toBe(a.request_id);
    expect(await held()).toEqual([both[1]]);
    expect((await release({ count: 5 })).body.released).toBe(1);
    expect((await second).status).toBe(200);
  });

  it('a held submit keeps its key in flight (409, Retry-After 3); after release it is enqueued once and replays', async () => {
    await emu.control('POST', '/faults', { endpoint: 'generate', hold: true });
    const h = { 'idempotency-key': 'held-1' };
    const first = emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    expect(await held(1)).toMatchObject([{ endpoint: 'generate' }]);
    const second = await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    expect([second.status, second.body.error, second.headers.get('retry-after')]).toEqual([409, 'IDEMPOTENT_REQUEST_IN_FLIGHT', '3']);
    expect((await account()).ledger.filter((e: { type: string }) => e.type === 'reserve')).toHaveLength(0);
    await release();
    expect((await first).status).toBe(202);
    const third = await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.body.generation_id).toBe((await first).body.generation_id);
    expect((await account()).ledger.filter((e: { type: string }) => e.type === 'reserve')).toHaveLength(1);
  });

  it("with when 'after' the submit takes effect while its answer is held", async () => {
    await emu.control('POST', '/faults', { endpoint: 'generate', hold: true, when: 'after' });
    const first = emu.submit({ model: 'image-fast', prompt: 'x' });
    await held(1);
    expect((await account()).ledger.filter((e: { type: string }) => e.type === 'reserve')).toHaveLength(1);
    await release();
    expect((await first).status).toBe(202);
  });

  it('hold then status: the error comes after the release, and the refused submit frees its key', async () => {
    await emu.control('POST', '/faults', { endpoint: 'generate', hold: true, status: 503 });
    const h = { 'idempotency-key': 'held-503' };
    const first = emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h });
    await held(1);
    await release();
    const r = await first;
    expect([r.status, r.body.error, r.headers.get('retry-after')]).toEqual([503, 'PROVIDER_DOWN', '60']);
    expect((await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: h })).status).toBe(202);
  });

  it('DELETE /faults clears pending faults only; held requests stay held until released', async () => {
    await emu.control('POST', '/faults', { endpoint: 'credits', hold: true });
    const pending = emu.call('GET', '/api/v1/credits');
    await held(1);
    expect((await emu.control('DELETE', '/faults')).status).toBe(200);
    expect(await held()).toHaveLength(1);
    await release();
    expect((await pending).status).toBe(200);
  });
});

describe('hold: bounded', () => {
  it('a reset drops held requests (a connection reset, nothing billed)', async () => {
    await emu.control('POST', '/faults', { endpoint: 'generate', hold: true });
    const submit = settle(emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: { 'idempotency-key': 'held-reset' } }));
    await held(1);
    expect((await emu.control('POST', '/reset')).status).toBe(200);
    expect(await submit).toBeInstanceOf(TypeError);
    expect(await held()).toEqual([]);
    const a = await account();
    expect([a.balance, a.ledger.filter((e: { type: string }) => e.type === 'reserve')]).toEqual([15000, []]);
    // The key is free: the reset forgot it, and the dropped request left no claim behind.
    expect((await emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: { 'idempotency-key': 'held-reset' } })).status).toBe(202);
  });

  it('a reset ends a delayed request too (a connection reset, nothing billed), not after its delay', async () => {
    // Held first, so the test knows it has arrived; released, it sits in its 60 s delay.
    await emu.control('POST', '/faults', { endpoint: 'generate', hold: true, delayMs: 60_000 });
    const submit = settle(emu.submit({ model: 'image-fast', prompt: 'x' }, { headers: { 'idempotency-key': 'delay-reset' } }));
    await held(1);
    expect((await release()).body).toMatchObject({ released: 1 });
    expect((await emu.control('POST', '/reset')).status).toBe(200);
    expect(await submit).toBeInstanceOf(TypeError);
    const a = await account();
    expect([a.balance, a.ledger.filter((e: { type: string }) => e.type === 'reserve')]).toEqual([15000, []]);
  });

  it('closing the server ends held requests; close resolves', async () => {
    const other = await emulator();
    await other.control('POST', '/faults', { endpoint: 'models', hold: true });
    const pending = settle(other.call('GET', '/api/v1/models'));
    expect((await other.control('GET', '/faults/held?min=1')).body.held).toHaveLength(1);
    await other.close();
    expect(await pending).toBeInstanceOf(TypeError);
  });
});

describe('hold: in process', () => {
  let inProcess: InProcessEmulator | undefined;
  afterEach(async () => {
    await inProcess?.close();
    inProcess = undefined;
  });
  const start = () => {
    inProcess = createEmulator({ config: { accounts: [{ id: 'acct_unit', tier: 'pro', balance: 1000, keys: [{ key: KEY }] }] } });
    return inProcess;
  };
  const models = (e: InProcessEmulator) => e.fetch(`${e.url}/api/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });

  it('faults.held({ min }) waits for the hold; faults.release() lets it go', async () => {
    const e = start();
    await e.faults.add({ endpoint: 'models', hold: true });
    expect(await e.faults.list()).toMatchObject([{ hold: true }]);
    const pending = models(e);
    const [h] = await e.faults.held({ min: 1 });
    expect(h).toMatchObject({ endpoint: 'models' });
    expect(await e.faults.release()).toBe(1);
    const r = await pending;
    expect([r.status, r.headers.get('x-request-id')]).toEqual([200, h?.request_id]);
    expect(await e.faults.held()).toEqual([]);
  });

  it('refuses a bad min or count with EmulatorControlError', async () => {
    const e = start();
    await expect(e.faults.held({ min: -1 })).rejects.toBeInstanceOf(EmulatorControlError);
    await expect(e.faults.release(0)).rejects.toMatchObject({ status: 422, code: 'INVALID_BODY' });
    await expect(e.faults.add({ hold: 'yes' as never })).rejects.toMatchObject({ status: 422 });
  });

  it('close ends a held request (fetch rejects, as on a reset connection)', async () => {
    const e = start();
    await e.faults.add({ endpoint: 'models', hold: true });
    const pending = models(e).then(
      (r) => r,
      (err: unknown) => err,
    );
    await e.faults.held({ min: 1 });
    await e.close();
    expect(await pending).toBeInstanceOf(TypeError);
  });
});
