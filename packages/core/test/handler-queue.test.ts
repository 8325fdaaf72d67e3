import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Gate, MediaGenClient, MemoryGateStore } from '../src/index';
import { createGenerationLedger, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { createNodeHandler } from '../src/node';
import { createMediaGenHandler, type MediaGenHandlerOptions, queueGateStore } from '../src/server';
import { SUBMIT_EVENTS } from '../src/wire';
import { sseReader } from './support/sse';

// Queue position in the browser (issue 34): a submit to the one handler that takes
// `text/event-stream` and waits for a slot in the app's gate is answered as a stream of `queue`
// events, then one `answer` event carrying the JSON answer it would have had. Over real HTTP,
// against the emulator; the gate is held full by `[[hold]]` renders, so nothing races a clock.

const API_KEY = 'svc_live_handler_queue_0123456789';
const ACCOUNT = 'acct_handler_queue';
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
const STREAM = 'application/json, text/event-stream';

async function startApp(options: { ledger?: boolean; maxWaitMs?: number; extra?: Partial<MediaGenHandlerOptions> } = {}) {
  const client = new MediaGenClient({
    apiKey: API_KEY,
    baseUrl: emu.url,
    maxRetries: 0,
    gate: new Gate({ store: queueGateStore(new MemoryGateStore()), maxWaitMs: options.maxWaitMs }),
  });
  const reported: string[] = [];
  const ledger = options.ledger === false ? undefined : createGenerationLedger({ client, store: new MemoryGenerationStore() });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    ...(ledger ? { source: ledgerSource(ledger) } : { authorize: () => true }),
    onError: (error) => void reported.push((error as { code?: string }).code ?? String(error)),
    ...options.extra,
  });
  const handle = createNodeHandler(handler);
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fillers: string[] = [];
  return {
    client,
    handler,
    origin,
    /** What the handler reported to `onError` (5xx answers). */
    reported,
    submit: (user: string, prompt: string, init: { key?: string; accept?: string; signal?: AbortSignal } = {}) =>
      fetch(`${origin}/api/generations`, {
        method: 'POST',
        headers: {
          'x-user': user,
          'content-type': 'application/json',
          accept: init.accept ?? STREAM,
          ...(init.key ? { 'idempotency-key': init.key } : {}),
        },
        body: JSON.stringify({ model: 'image-fast', prompt }),
        signal: init.signal,
      }),
    list: (user: string) => fetch(`${origin}/api/generations`, { headers: { 'x-user': user } }),
    cancel: (user: string, id: string) => fetch(`${origin}/api/generations/${id}/cancel`, { method: 'POST', headers: { 'x-user': user } }),
    /** Every slot of the gate held by a `[[hold]]` render. */
    async fill() {
      for (let i = 0; i < MAX_CONCURRENT; i++) {
        fillers.push((await client.generations.create({ model: 'image-fast', prompt: `[[hold]] filler ${i}` })).generation_id);
      }
    },
    /** The oldest filler's render goes on and ends; the read that sees it end frees its slot in the gate. */
    async freeOne() {
      const id = fillers.shift()!;
      expect(await emu.faults.release(1)).toBe(1);
      await expect.poll(async () => (await client.generations.get(id)).status, { timeout: 20_000 }).toBe('completed');
    },
    async close() {
      await ledger?.stop();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const data = (event: { data?: string } | undefined) => JSON.parse(event?.data ?? 'null');

describe('POST {basePath}/generations with Accept: text/event-stream', () => {
  it('a submit that waits is told its place as it moves, then answered with the 202 it would have had; billed once', async () => {
    const app = await startApp();
    await app.fill();
    const first = await app.submit('ada', 'a heron', { key: 'queue-k1' });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const ada = sseReader(first.body!);
    const told = await ada.next();
    expect(told?.event).toBe(SUBMIT_EVENTS.queue);
    expect(data(told)).toEqual({ position: 1, limit: 'max_concurrent', as_of: expect.any(String) });
    // A second user's submit stands behind it.
    const bob = sseReader((await app.submit('bob', 'an owl', { key: 'queue-k2' })).body!);
    expect(data(await bob.next())).toMatchObject({ position: 2, limit: 'max_concurrent' });
    // A slot frees: ada's submit goes; bob's moves up to first.
    await app.freeOne();
    const answered = await ada.next();
    expect(answered?.event).toBe(SUBMIT_EVENTS.answer);
    const answer = data(answered);
    expect(answer).toMatchObject({ status: 202, body: { generation_id: expect.any(String), status: 'pending', model: 'image-fast' } });
    expect(await ada.next()).toBeUndefined(); // the stream ends with its answer
    expect(data(await bob.next())).toMatchObject({ position: 1, limit: 'max_concurrent' });
    await app.freeOne();
    expect(data(await bob.next())).toMatchObject({ status: 202 });
    // A resend of ada's submit with its key: the same generation (no wait, so JSON), no second bill.
    const again = await app.submit('ada', 'a heron', { key: 'queue-k1' });
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await again.json()).toMatchObject({ generation_id: answer.body.generation_id });
    await emu.faults.release();
    expect((await reserves()).filter((r) => r.generation_id === answer.body.generation_id)).toHaveLength(1);
    expect(await reserves()).toHaveLength(MAX_CONCURRENT + 2);
    await app.close();
  });

  it('a submit with a free slot, or one refused before it waits, is answered as JSON exactly as without the header', async () => {
    const app = await startApp();
    const accepted = await app.submit('ada', 'a lark');
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await accepted.json()).toMatchObject({ generation_id: expect.any(String) });
    const refused = await fetch(`${app.origin}/api/generations`, {
      method: 'POST',
      headers: { 'x-user': 'ada', 'content-type': 'application/json', accept: STREAM },
      body: JSON.stringify({ model: 'image-fast' }),
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(await refused.json()).toMatchObject({ error: expect.any(String), next: expect.any(String) });
    await emu.faults.release();
    await app.close();
  });

  it('a refusal met after waiting comes as the answer event, with the status and error body the JSON route gives', async () => {
    // maxWaitMs 0: the gate refuses (GATE_TIMEOUT) right after telling the submit it waits.
    for (const ledger of [true, false]) {
      const app = await startApp({ ledger, maxWaitMs: 0 });
      await app.fill();
      const reader = sseReader((await app.submit('ada', `a kite, refused (ledger ${ledger})`)).body!);
      expect(data(await reader.next())).toMatchObject({ position: 1, limit: 'max_concurrent' });
      const answered = await reader.next();
      expect(answered?.event).toBe(SUBMIT_EVENTS.answer);
      expect(data(answered)).toEqual({
        status: 503,
        body: expect.objectContaining({ error: 'GATE_TIMEOUT', message: expect.any(String), next: expect.any(String) }),
      });
      expect(await reader.next()).toBeUndefined();
      // A 5xx answered in the stream is reported to the app, as the JSON route's are.
      expect(app.reported).toContain('GATE_TIMEOUT');
      await emu.faults.release();
      await app.close();
    }
  });

  it('the browser hangs up while it waits: the submit is stopped unsent, never billed; the cancel route says charged false', async () => {
    const app = await startApp();
    await app.fill();
    const billed = (await reserves()).length;
    const leaving = new AbortController();
    const response = await app.submit('ada', 'a wren, left in line', { key: 'queue-gone', signal: leaving.signal });
    const reader = sseReader(response.body!);
    expect((await reader.next())?.event).toBe(SUBMIT_EVENTS.queue);
    const intents = async () =>
      ((await (await app.list('ada')).json()) as { generations: any[] }).generations.filter((g) => !g.generation_id);
    expect(await intents()).toEqual([expect.objectContaining({ submitting: true })]);
    leaving.abort();
    // The stream's end reaches the handler, which stops the submit before its send point: the
    // intent ends unsent (no longer listed: it never became a generation), and the cancel route says so.
    await expect.poll(intents, { timeout: 20_000 }).toEqual([]);
    expect(await (await app.cancel('ada', 'queue-gone')).json()).toMatchObject({ outcome: 'stopped', charged: false });
    // Every slot frees: nothing goes on for the stopped submit.
    for (let i = 0; i < MAX_CONCURRENT; i++) await app.freeOne();
    const after = await app.submit('ada', 'a later submit');
    expect(after.status).toBe(202);
    expect((await reserves()).length).toBe(billed + 1);
    // The browser's leaving is not the app's failure: nothing reported.
    expect(app.reported).toEqual([]);
    await app.close();
  });
});
