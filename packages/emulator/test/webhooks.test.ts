import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { deadPort, type Emu, emulator, proAccount, receiver, until } from './helpers.js';

const SECRET = 'whsec_test';
// Per-test cleanup (not a shared afterEach): the 5 s window tests run concurrently.
const closers = {
  push: (...fns: Array<() => Promise<void>>) =>
    onTestFinished(async () => {
      for (const f of fns) await f();
    }),
};

type Finished = (fn: () => Promise<void>) => void;
async function setup(behave: (n: number, res: ServerResponse) => void, timeScale = 0.05, finished?: Finished) {
  const rec = await receiver((n, _req, res) => behave(n, res));
  const emu = await emulator({ timeScale, accounts: [proAccount({ webhooks: [{ url: rec.url, secret: SECRET }] }) as never] });
  if (finished)
    finished(async () => {
      await rec.close();
      await emu.close();
    });
  else
    closers.push(
      () => rec.close(),
      () => emu.close(),
    );
  return { rec, emu };
}

const rowsFor = async (emu: Emu, id: string) => (await emu.control('GET', `/deliveries?generation_id=${id}`)).body.deliveries;
const settled = (emu: Emu, id: string, n = 1, timeoutMs = 15_000) =>
  until(async () => {
    const rows = await rowsFor(emu, id);
    const last = rows[rows.length - 1];
    return rows.length >= n && last && last.outcome !== 'pending' && last.outcome !== 'retrying' ? rows : null;
  }, timeoutMs);

const ok = (res: ServerResponse) => res.writeHead(200).end('ok');
const hmac = (body: Buffer, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('webhook delivery', () => {
  it('generation.completed: headers, signature over the raw body, payload fields, one log row', async () => {
    const { rec, emu } = await setup((_n, res) => ok(res));
    const s = await emu.submit({ model: 'image-fast', prompt: 'x', number_results: 2 });
    const rows = await settled(emu, s.body.generation_id);
    expect(rec.received).toHaveLength(1);
    const got = rec.received[0]!;
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Service-Webhook/1.0');
    expect(got.headers['x-service-event']).toBe('generation.completed');
    expect(got.headers['x-service-signature']).toBe(hmac(got.body));
    expect(got.headers['x-service-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
    const p = JSON.parse(got.body.toString('utf8'));
    expect(p).toMatchObject({ generation_id: s.body.generation_id, status: 'completed', model: 'image-fast', credits_charged: 8 });
    expect(p.output_urls).toHaveLength(2);
    expect(p.output_url).toBe(p.output_urls[0]);
    expect(p.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(typeof p.duration_ms).toBe('number');
    expect(p.error_code).toBeUndefined();
    const exp = Number(/\/output\/[^/]+\/(\d+)\//.exec(p.output_url)![1]) * 1000;
    expect(Math.abs(exp - (Date.parse(p.completed_at) + 3 * 86_400_000))).toBeLessThan(1000);
    expect((await emu.fetchRaw(p.output_url)).status).toBe(200);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      generation_id: s.body.generation_id,
      event: 'generation.completed',
      url: rec.url,
      attempt: 1,
      delivery_id: got.headers['x-service-delivery-id'],
      status: 200,
      error: null,
      outcome: 'delivered',
    });
    expect(typeof rows[0].response_time_ms).toBe('number');
  });

  it('generation.failed: error_code, error_message, retryable; refunded or forfeited credits_charged', async () => {
    const { rec, emu } = await setup((_n, res) => ok(res));
    const a = await emu.submit({ model: 'image-fast', prompt: 'x [[fail:rate_limited]]' });
    const b = await emu.submit({ model: 'image-fast', prompt: 'x [[flag]]' });
    await settled(emu, a.body.generation_id);
    await settled(emu, b.body.generation_id);
    const byId = Object.fromEntries(rec.received.map((r) => [JSON.parse(r.body.toString()).generation_id, r]));
    const fa = byId[a.body.generation_id]!;
    expect(fa.headers['x-service-event']).toBe('generation.failed');
    expect(JSON.parse(fa.body.toString())).toMatchObject({
      status: 'failed',
      output_url: null,
      output_urls: null,
      credits_charged: 0,
      error_code: 'rate_limited',
      retryable: true,
    });
    expect(JSON.parse(fa.body.toString()).error_message).toBeTruthy();
    expect(JSON.parse(byId[b.body.generation_id]!.body.toString())).toMatchObject({
      error_code: 'CONTENT_POLICY_VIOLATION',
      retryable: false,
      credits_charged: 4,
    });
  });

  it('3xx ends the chain as success', async () => {
    const { rec, emu } = await setup((_n, res) => res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end());
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const rows = await settled(emu, s.body.generation_id);
    expect(rows.map((r: { status: number; outcome: string }) => [r.status, r.outcome])).toEqual([[302, 'delivered']]);
    expect(rec.received).toHaveLength(1);
  });

  it('4xx ends the chain as a terminal failure, no retry', async () => {
    const { rec, emu } = await setup((_n, res) => res.writeHead(400).end());
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const rows = await settled(emu, s.body.generation_id);
    await new Promise((r) => setTimeout(r, 400));
    expect(rec.received).toHaveLength(1);
    expect(rows.map((r: { status: number; outcome: string }) => [r.status, r.outcome])).toEqual([[400, 'rejected']]);
  });

  it('5xx is retried: 3 attempts at 0, +1 s, +5 s (scaled), new delivery id each, same body', async () => {
    const { rec, emu } = await setup((_n, res) => res.writeHead(500).end());
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const rows = await settled(emu, s.body.generation_id, 3);
    expect(rec.received).toHaveLength(3);
    expect(rows.map((r: { attempt: number; status: number; outcome: string }) => [r.attempt, r.status, r.outcome])).toEqual([
      [1, 500, 'retrying'],
      [2, 500, 'retrying'],
      [3, 500, 'failed'],
    ]);
    const ids = new Set(rec.received.map((r) => r.headers['x-service-delivery-id']));
    expect(ids.size).toBe(3);
    expect(rows.map((r: { delivery_id: string }) => r.delivery_id)).toEqual(rec.received.map((r) => r.headers['x-service-delivery-id']));
    expect(new Set(rec.received.map((r) => r.body.toString())).size).toBe(1);
    const [t1, t2, t3] = rec.received.map((r) => r.at) as [number, number, number];
    // timeScale 0.05: waits of at least 50 ms and 250 ms. Only floors: each wait starts when the
    // previous attempt ends, so on a loaded machine any gap can grow, and their order with it.
    expect(t2 - t1).toBeGreaterThanOrEqual(45);
    expect(t3 - t2).toBeGreaterThanOrEqual(245);
    await new Promise((r) => setTimeout(r, 300));
    expect(rec.received).toHaveLength(3);
  });

  it('timeScale 0.001: a receiver slower than the scaled budget (200 ms > 90 ms) still gets all 3 attempts', async () => {
    const { rec, emu } = await setup((_n, res) => void setTimeout(() => res.writeHead(500).end(), 200), 0.001);
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const rows = await settled(emu, s.body.generation_id, 3);
    expect(rows.map((r: { attempt: number; status: number; outcome: string }) => [r.attempt, r.status, r.outcome])).toEqual([
      [1, 500, 'retrying'],
      [2, 500, 'retrying'],
      [3, 500, 'failed'],
    ]);
    expect(rec.received).toHaveLength(3);
  });

  it('a 5xx then a 2xx: delivered on attempt 2', async () => {
    const { emu } = await setup((n, res) => (n === 1 ? res.writeHead(503).end() : ok(res)));
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const rows = await settled(emu, s.body.generation_id, 2);
    expect(rows.map((r: { attempt: number; status: number; outcome: string }) => [r.attempt, r.status, r.outcome])).toEqual([
      [1, 503, 'retrying'],
      [2, 200, 'delivered'],
    ]);
  });

  it('a receiver that closes the socket is a transport failure and is retried', async () => {
    const { rec, emu } = await setup((n, res) => (n === 1 ? res.socket?.destroy() : ok(res)));
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const rows = await settled(emu, s.body.generation_id, 2);
    expect(rows[0]).toMatchObject({ attempt: 1, status: null, error: 'connection reset', outcome: 'retrying' });
    expect(rows[1]).toMatchObject({ attempt: 2, status: 200, outcome: 'delivered' });
    expect(rec.received).toHaveLength(2);
  });

  it('connection refused is retried up to 3 attempts', async () => {
    const port = await deadPort();
    const emu = await emulator({
      timeScale: 0.01,
      accounts: [proAccount({ webhooks: [{ url: `http://127.0.0.1:${port}/h`, secret: SECRET }] }) as never],
    });
    closers.push(() => emu.close());
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const rows = await settled(emu, s.body.generation_id, 3);
    expect(rows.map((r: { error: string; outcome: string }) => [r.error, r.outcome])).toEqual([
      ['ECONNREFUSED', 'retrying'],
      ['ECONNREFUSED', 'retrying'],
      ['ECONNREFUSED', 'failed'],
    ]);
  });

  it('every enabled endpoint, each with its own secret; disabled ones get nothing; nothing for estimates', async () => {
    const a = await receiver((_n, _q, res) => ok(res));
    const b = await receiver((_n, _q, res) => ok(res));
    const c = await receiver((_n, _q, res) => ok(res));
    const emu = await emulator({
      timeScale: 0.01,
      accounts: [
        proAccount({
          webhooks: [
            { url: a.url, secret: 'whsec_a' },
            { url: b.url, secret: 'whsec_b', enabled: true },
            { url: c.url, secret: 'whsec_c', enabled: false },
          ],
        }) as never,
      ],
    });
    closers.push(
      () => a.close(),
      () => b.close(),
      () => c.close(),
      () => emu.close(),
    );
    await emu.submit({ model: 'image-fast', prompt: 'x', estimate: true });
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    await settled(emu, s.body.generation_id, 2);
    expect(a.received).toHaveLength(1);
    expect(b.received).toHaveLength(1);
    expect(c.received).toHaveLength(0);
    expect(a.received[0]!.headers['x-service-signature']).toBe(hmac(a.received[0]!.body, 'whsec_a'));
    expect(b.received[0]!.headers['x-service-signature']).toBe(hmac(b.received[0]!.body, 'whsec_b'));
    expect(a.received[0]!.headers['x-service-delivery-id']).not.toBe(b.received[0]!.headers['x-service-delivery-id']);
    expect((await emu.control('GET', '/deliveries')).body.deliveries).toHaveLength(2);
    expect((await emu.control('GET', '/deliveries?limit=1')).body.deliveries).toHaveLength(1);
  });
});

describe.concurrent('the 5-second window (real time)', () => {
  it('a hang times out after 5 s and is retried', async ({ onTestFinished: finished }) => {
    const { rec, emu } = await setup((n, res) => (n === 1 ? undefined : ok(res)), 0.1, finished);
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const rows = await settled(emu, s.body.generation_id, 2);
    expect(rows[0]).toMatchObject({ attempt: 1, status: null, error: 'timeout', outcome: 'retrying' });
    // The hang never answers: only the 5 s window can have ended the attempt (a floor, no
    // ceiling: a loaded machine fires the timer late, never early).
    expect(rows[0].response_time_ms).toBeGreaterThanOrEqual(4990);
    expect(rows[1]).toMatchObject({ attempt: 2, status: 200, outcome: 'delivered' });
    expect(rec.received).toHaveLength(2);
  }, 20_000);

  // Before the fix, the 90 s budget was scaled while the 5 s windows were not: at these
  // timeScales a receiver that never answers got 1 attempt (the scaled budget ran out).
  it.for([0.05, 0.001])(
    'timeScale %s: an endpoint that never answers still gets 3 attempts in order',
    { timeout: 30_000 },
    async (timeScale: number, { onTestFinished: finished }) => {
      const { rec, emu } = await setup(() => undefined, timeScale, finished);
      const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
      const rows = await settled(emu, s.body.generation_id, 3, 25_000);
      expect(rows.map((r: { attempt: number; error: string; outcome: string }) => [r.attempt, r.error, r.outcome])).toEqual([
        [1, 'timeout', 'retrying'],
        [2, 'timeout', 'retrying'],
        [3, 'timeout', 'failed'],
      ]);
      expect(rec.received).toHaveLength(3);
    },
  );
});
