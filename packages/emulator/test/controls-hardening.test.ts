import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { sharedEmulator } from './helpers.js';

const emu = await sharedEmulator();

interface Answer {
  status: number;
  body: any;
  requestId: string | undefined;
}

/** node:http rather than fetch: it lets a test set `Host` and send any Content-Type. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const { hostname, port } = new URL(emu.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null, requestId: res.headers['x-request-id'] as string });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const clockOffset = async () => (await emu.control('GET', '/clock')).body.offset_ms as number;
const faultCount = async () => (await emu.control('GET', '/faults')).body.faults.length as number;

describe('control input out of range is refused with 4xx and changes nothing', () => {
  it('POST /clock {advanceMs: 9e15} is 422; the clock does not move and submits still bill correctly', async () => {
    const r = await emu.control('POST', '/clock', { advanceMs: 9e15 });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'advanceMs' } });
    expect(await clockOffset()).toBe(0);
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    expect(s.status).toBe(202);
    const ledger = (await emu.control('GET', '/accounts/acct_pro')).body.ledger;
    expect(ledger.filter((e: { type: string }) => e.type === 'reserve')).toHaveLength(1);
  });

  it.each([
    [{ advanceMs: -1 }],
    [{ advanceMs: 1.5 }],
    [{ advanceMs: '5' }],
    [{ advanceMs: Number.MAX_SAFE_INTEGER }],
    [{ advanceMs: 1, extra: true }],
    [{}],
    [[1]],
  ])('POST /clock %j is 422', async (body) => {
    const r = await emu.control('POST', '/clock', body);
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('INVALID_BODY');
    expect(await clockOffset()).toBe(0);
  });

  it('the clock bound is cumulative: many in-range steps cannot pass it', async () => {
    const year = 365 * 24 * 3600 * 1000;
    expect((await emu.control('POST', '/clock', { advanceMs: 99 * year })).status).toBe(200);
    expect((await emu.control('POST', '/clock', { advanceMs: 2 * year })).status).toBe(422);
    expect(await clockOffset()).toBe(99 * year);
    expect((await emu.submit({ model: 'image-fast', prompt: 'x' })).status).toBe(202);
  });

  it('PATCH /accounts validates every field before applying any', async () => {
    const r = await emu.control('PATCH', '/accounts/acct_pro', { balance: 5, status: 'bogus' });
    expect(r.status).toBe(422);
    expect(r.body.details.field).toBe('status');
    const view = (await emu.control('GET', '/accounts/acct_pro')).body;
    expect(view.balance).toBe(15000);
    expect(view.status).toBe('active');
    for (const body of [{ balance: 1e300 }, { balance: -1 }, { until: 5 }, { tier: 'gold' }, { nope: 1 }]) {
      const bad = await emu.control('PATCH', '/accounts/acct_pro', body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
    }
    expect((await emu.control('GET', '/accounts/acct_pro')).body.balance).toBe(15000);
  });

  it.each([
    [{ status: 100.5 }],
    [{ status: 200 }],
    [{ status: 101 }],
    [{ delayMs: 1e12 }],
    [{ delayMs: Number.POSITIVE_INFINITY }],
    [{ count: 1e300 }],
    [{ code: 'x'.repeat(100) }],
    [{ message: 'm'.repeat(5000) }],
    [[{ status: 500 }, { status: 'x' }]],
  ])('POST /faults %j is 422 and adds nothing', async (body) => {
    const r = await emu.control('POST', '/faults', body);
    expect(r.status).toBe(422);
    expect(await faultCount()).toBe(0);
  });

  it('reset and DELETE /faults take no body fields; /accounts/%ZZ is 404; a bad ?limit is 422', async () => {
    expect((await emu.control('POST', '/reset', { everything: true })).status).toBe(422);
    expect((await emu.control('DELETE', '/faults', { x: 1 })).status).toBe(422);
    const bad = await emu.control('GET', '/accounts/%ZZ');
    expect(bad.status).toBe(404);
    expect(bad.body.error).toBe('NOT_FOUND');
    expect((await emu.control('GET', '/deliveries?limit=abc')).status).toBe(422);
    expect((await emu.control('GET', '/deliveries?limit=2')).status).toBe(200);
  });
});

describe('controls require a loopback Host, no foreign Origin and a JSON body', () => {
  it('a DNS-rebound Host is 403 CONTROL_FORBIDDEN and the control does not run', async () => {
    const s = await emu.submit({ model: 'image-fast', prompt: 'x' });
    const port = new URL(emu.url).port;
    for (const host of [
      `attacker.example:${port}`,
      'attacker.example',
      `127.0.0.1.attacker.example:${port}`,
      `localhost.attacker:${port}`,
    ]) {
      const r = await raw('POST', '/__emulator/reset', { host });
      expect(r.status, host).toBe(403);
      expect(r.body).toMatchObject({ error: 'CONTROL_FORBIDDEN', request_id: r.requestId });
      expect(typeof r.body.next).toBe('string');
    }
    expect((await emu.get(s.body.generation_id)).status).toBe(200);
  });

  it('loopback Host forms are accepted', async () => {
    const port = new URL(emu.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, '127.0.0.1', 'LOCALHOST']) {
      expect((await raw('GET', '/__emulator/clock', { host })).status, host).toBe(200);
    }
  });

  it('a request from a web page of another origin is 403; a loopback page is served', async () => {
    for (const origin of ['http://evil.example', 'null', 'https://127.0.0.1.evil.example']) {
      const r = await raw('POST', '/__emulator/reset', { origin });
      expect(r.status, origin).toBe(403);
      expect(r.body.error).toBe('CONTROL_FORBIDDEN');
    }
    expect((await raw('POST', '/__emulator/reset', { origin: 'http://localhost:3000' })).status).toBe(200);
  });

  it('a body that is not JSON by Content-Type is 415 and does nothing', async () => {
    const body = JSON.stringify({ endpoint: 'generate', status: 500 });
    const variants: Array<Record<string, string>> = [
      { 'content-type': 'text/plain' },
      {},
      { 'content-type': 'application/x-www-form-urlencoded' },
    ];
    for (const headers of variants) {
      const r = await raw('POST', '/__emulator/faults', headers, body);
      expect(r.status, JSON.stringify(headers)).toBe(415);
      expect(r.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect(await faultCount()).toBe(0);
    const ok = await raw('POST', '/__emulator/faults', { 'content-type': 'application/json; charset=utf-8' }, body);
    expect(ok.status).toBe(201);
  });
});
