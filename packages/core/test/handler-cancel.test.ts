import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Gate, type GateWait, MediaGenClient, MemoryGateStore } from '../src/index';
import { createGenerationLedger, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { createNodeHandler } from '../src/node';
import { createMediaGenHandler, type GenerationSource, type MediaGenHandler, queueGateStore } from '../src/server';

// The one handler's cancel route (issue 34): a user stops their own generation or intent by its
// id or by the Idempotency-Key their browser sent; the answer says whether anything was charged.
// Bills are counted from the emulator's account ledger.

const API_KEY = 'svc_live_handler_cancel_0123456789';
const ACCOUNT = 'acct_handler_cancel';
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

const reserves = async () => (await emu.accounts.get(ACCOUNT)).ledger.filter((row) => row.type === 'reserve');

/** A gated client that tells each wait in the gate (`onQueue`), and an app serving the handler over HTTP. */
async function startApp(source?: (client: MediaGenClient) => GenerationSource) {
  const waits: GateWait[] = [];
  let told: (() => void) | undefined;
  const client = new MediaGenClient({
    apiKey: API_KEY,
    baseUrl: emu.url,
    maxRetries: 0,
    gate: new Gate({ store: queueGateStore(new MemoryGateStore()) }),
  });
  const create = client.generations.create.bind(client.generations);
  client.generations.create = ((params, options = {}) =>
    create(params, {
      ...options,
      onQueue: (wait) => {
        waits.push(wait);
        told?.();
      },
    })) as typeof client.generations.create;
  const ledger = createGenerationLedger({ client, store: new MemoryGenerationStore() });
  const handler: MediaGenHandler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source: source ? source(client) : ledgerSource(ledger),
    onError: () => {},
  });
  const handle = createNodeHandler(handler);
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = (method: string, path: string, user: string, init: { body?: unknown; key?: string } = {}) =>
    fetch(`${origin}/api${path}`, {
      method,
      headers: { 'x-user': user, 'content-type': 'application/json', ...(init.key ? { 'idempotency-key': init.key } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  return {
    client,
    ledger,
    handler,
    call,
    nextWait: () => new Promise<void>((resolve) => (told = resolve)),
    async fill() {
      for (let i = 0; i < MAX_CONCURRENT; i++) await client.generations.create({ model: 'image-fast', prompt: `[[hold]] filler ${i}` });
    },
    async close() {
      await ledger.stop();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('POST {basePath}/generations/:id/cancel', () => {
  it("a submit waiting in the gate, cancelled by the browser's key: stopped, charged false, nothing billed; another user gets 404", async () => {
    const app = await startApp();
    await app.fill();
    const waiting = app.nextWait();
    const submitting = app.call('POST', '/generations', 'ada', { body: { model: 'image-fast', prompt: 'a heron' }, key: 'browser-key-1' });
    await waiting;
    // Another user naming the same key (or guessing it) finds nothing, as reads do.
    const foreign = await app.call('POST', '/generations/browser-key-1/cancel', 'bob');
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: 'NOT_FOUND' });
    const res = await app.call('POST', '/generations/browser-key-1/cancel', 'ada');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const answer = await res.json();
    expect(answer).toMatchObject({
      outcome: 'stopped',
      charged: false,
      generation: { status: 'failed', generation_id: null, abandoned: true, error: { code: 'ABORTED' } },
    });
    // The submit's own answer is the abort, not a 202.
    const submitted = await submitting;
    expect(submitted.status).not.toBe(202);
    await emu.faults.release();
    expect(await reserves()).toHaveLength(MAX_CONCURRENT);
    await app.close();
  });

  it('a generation the service has: abandoned, charged true, billed once; by id, the same answer again after it ends (finished)', async () => {
    const app = await startApp();
    const accepted = await app.call('POST', '/generations', 'ada', {
      body: { model: 'image-fast', prompt: '[[hold]] an owl' },
      key: 'k-2',
    });
    expect(accepted.status).toBe(202);
    const { generation_id } = (await accepted.json()) as { generation_id: string };
    expect((await app.call('POST', `/generations/${generation_id}/cancel`, 'bob')).status).toBe(404);
    const answer = await (await app.call('POST', `/generations/${generation_id}/cancel`, 'ada')).json();
    expect(answer).toMatchObject({ outcome: 'abandoned', charged: true, generation: { generation_id, abandoned: true } });
    // The key as the browser sent it names the same generation.
    expect(await (await app.call('POST', '/generations/k-2/cancel', 'ada')).json()).toMatchObject({ outcome: 'abandoned', charged: true });
    await emu.faults.release();
    await app.ledger.wait('ada', generation_id);
    expect(await (await app.call('POST', `/generations/${generation_id}/cancel`, 'ada')).json()).toMatchObject({
      outcome: 'finished',
      charged: true,
    });
    expect((await reserves()).map((r) => r.generation_id)).toEqual([generation_id]);
    await app.close();
  });

  it('refuses what it cannot do: GET is 405, an unknown id 404, a source without cancel 404 saying so (and route() leaves it to the app)', async () => {
    const app = await startApp();
    expect((await app.call('GET', '/generations/nope/cancel', 'ada')).status).toBe(405);
    expect((await app.call('POST', '/generations/nope/cancel', 'ada')).status).toBe(404);
    expect(app.handler.route('POST', '/api/generations/abc/cancel')).toBe('cancel');
    await app.close();
    const bare = await startApp(() => ({ record: () => {}, get: () => undefined, list: () => ({ generations: [] }) }));
    const refused = await bare.call('POST', '/generations/abc/cancel', 'ada');
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { message: string }).message).toMatch(/cannot stop generations/);
    expect(bare.handler.route('POST', '/api/generations/abc/cancel')).toBeUndefined();
    await bare.close();
  });
});
