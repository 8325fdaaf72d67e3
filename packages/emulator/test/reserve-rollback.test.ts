import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config.js';
import { createHandler } from '../src/server.js';
import { EmulatorState } from '../src/state.js';
import { KEY, proAccount } from './helpers.js';

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

/** The emulator's router over a state the test can reach into, to inject failures mid-submit. */
async function start(): Promise<{ state: EmulatorState; url: string }> {
  const state = new EmulatorState(resolveConfig({ timeScale: 0.001, accounts: [proAccount()] }));
  server = createServer(createHandler(state));
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const submit = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'image-fast', prompt: 'x' }),
  });

describe('no answer of 500 leaves a reservation behind', () => {
  it('a failure after the charge (while storing the job) refunds it: 500, balance and in-flight unchanged', async () => {
    const { state, url } = await start();
    const account = state.accounts.byId.get('acct_pro')!;
    const at = state.scheduler.at.bind(state.scheduler);
    state.scheduler.at = () => {
      throw new Error('injected: scheduler down');
    };
    const r = await submit(url);
    expect(r.status).toBe(500);
    expect((await r.json()).error).toBe('INTERNAL_ERROR');
    expect(account.balance).toBe(15000);
    expect(account.inFlight).toBe(0);
    expect(state.generations.byId.size).toBe(0);
    expect(account.ledger.map((e) => [e.type, e.amount])).toEqual([
      ['grant', 15000],
      ['reserve', -4],
      ['refund', 4],
    ]);
    state.scheduler.at = at;
    expect((await submit(url)).status).toBe(202);
    expect(account.balance).toBe(14996);
  });

  it('a failure after the reservation is committed still answers the 202, billed once; the key stays claimed (409), never a second bill', async () => {
    const { state, url } = await start();
    const account = state.accounts.byId.get('acct_pro')!;
    const complete = state.idempotency.complete.bind(state.idempotency);
    state.idempotency.complete = () => {
      throw new Error('injected: store down');
    };
    const r = await submit(url, { 'idempotency-key': 'k1' });
    expect(r.status).toBe(202);
    const body = await r.json();
    expect(state.generations.byId.has(body.generation_id)).toBe(true);
    expect(account.ledger.filter((e) => e.type === 'reserve')).toHaveLength(1);
    state.idempotency.complete = complete;
    // The key stayed claimed: a retry cannot create a second billed generation.
    expect((await submit(url, { 'idempotency-key': 'k1' })).status).toBe(409);
    expect(account.ledger.filter((e) => e.type === 'reserve')).toHaveLength(1);
  });
});
