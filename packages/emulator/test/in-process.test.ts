/**
 * The in-process emulator as a user's unit test uses it: no port, no child process. The client
 * gets `emu.fetch`; webhooks go to the app's receiver in the same process; faults, clock and
 * deliveries are methods. Every wait is on an event (a terminal state, a settled delivery chain).
 */
import { ConnectionError, GenerationFailedError, MediaGenClient, TimeoutError, type WebhookEvent } from '@mediagen/core';
import { createWebhookHandler } from '@mediagen/core/server';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, EmulatorControlError, type InProcessEmulator, startEmulator } from '../src/index.js';

const KEY = 'svc_live_unit';
const SECRET = 'whsec_unit';
const HOOK = 'http://app.test/api/webhooks/mediagen';
const account = (over: Record<string, unknown> = {}) => ({
  id: 'acct_unit',
  tier: 'pro' as const,
  balance: 1000,
  keys: [{ key: KEY }],
  ...over,
});

let emu: InProcessEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** The app under test: a client on the emulator's fetch and a webhook receiver that records events. */
function app(options: { receiverStatus?: number } = {}) {
  const events: WebhookEvent[] = [];
  const client = new MediaGenClient({
    apiKey: KEY,
    baseUrl: 'http://unused.invalid',
    fetch: (i, init) => (emu as InProcessEmulator).fetch(i, init),
  });
  const receiver = createWebhookHandler({
    secrets: SECRET,
    client,
    onEvent: (event) => {
      events.push(event);
    },
  });
  const webhookFetch = async (request: Request) =>
    options.receiverStatus ? new Response(null, { status: options.receiverStatus }) : receiver(request);
  return { events, client, webhookFetch };
}

function start(options: { receiverStatus?: number; balance?: number } = {}) {
  const a = app(options);
  emu = createEmulator({
    config: { timeScale: 0.001, accounts: [account({ balance: options.balance ?? 1000, webhooks: [{ url: HOOK, secret: SECRET }] })] },
    webhookFetch: a.webhookFetch,
  });
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, fetch: emu.fetch, events: a.client.events });
  return { ...a, client, emu };
}

describe('createEmulator: the emulator in the test process', () => {
  it('a generation runs through emu.fetch, its output link downloads through it, and the signed webhook reaches the receiver', async () => {
    const { client, events, emu } = start();
    const done = await client.generations.run({ model: 'image-fast', prompt: 'a lighthouse', aspect_ratio: '1:1', seed: 7 });
    expect(done.status).toBe('completed');
    expect(done.output_url?.startsWith(`${emu.url}/api/v1/output/${done.generation_id}/`)).toBe(true);
    const png = await client.generations.download(done);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

    const rows = await emu.deliveries.settled(done.generation_id);
    expect(rows.map((r) => [r.attempt, r.status, r.outcome, r.url])).toEqual([[1, 200, 'delivered', HOOK]]);
    expect(events.map((e) => [e.type, e.data.generation_id])).toEqual([['generation.completed', done.generation_id]]);
    expect((await emu.accounts.get('acct_unit')).balance).toBe(1000 - done.credits_used);
  });

  it('a failed generation: run() throws GenerationFailedError, the receiver gets generation.failed, the credits come back', async () => {
    const { client, events, emu } = start();
    const e = await client.generations.run({ model: 'image-fast', prompt: 'x [[fail:model_unavailable]]' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GenerationFailedError);
    const failed = e as GenerationFailedError;
    expect([failed.code, failed.retryable]).toEqual(['model_unavailable', true]);
    await emu.deliveries.settled(failed.generation.generation_id);
    expect(events.map((x) => x.type)).toEqual(['generation.failed']);
    expect((await emu.accounts.get('acct_unit')).balance).toBe(1000);
  });

  it('a receiver answering 500 gets the contract retries: 3 attempts, same body, a new delivery id each', async () => {
    const { client, emu } = start({ receiverStatus: 500 });
    const done = await client.generations.run({ model: 'image-fast', prompt: 'retry me' });
    const rows = await emu.deliveries.settled(done.generation_id);
    expect(rows.map((r) => [r.attempt, r.status, r.outcome])).toEqual([
      [1, 500, 'retrying'],
      [2, 500, 'retrying'],
      [3, 500, 'failed'],
    ]);
    expect(new Set(rows.map((r) => r.delivery_id)).size).toBe(3);
  });

  it('a receiver that throws is a transport failure and is retried', async () => {
    emu = createEmulator({
      config: { timeScale: 0.001, accounts: [account({ webhooks: [{ url: HOOK, secret: SECRET }] })] },
      webhookFetch: () => {
        throw new Error('app crashed');
      },
    });
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, fetch: emu.fetch });
    const done = await client.generations.run({ model: 'image-fast', prompt: 'x' });
    const rows = await emu.deliveries.settled(done.generation_id);
    expect(rows.map((r) => [r.status, r.error, r.outcome])).toEqual([
      [null, 'receiver threw', 'retrying'],
      [null, 'receiver threw', 'retrying'],
      [null, 'receiver threw', 'failed'],
    ]);
  });

  it('faults: a 500 on submit is retried by the client with the same Idempotency-Key, one generation billed', async () => {
    const { client, emu } = start();
    await emu.faults.add({ endpoint: 'generate', status: 500 });
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'x' });
    expect(await emu.faults.list()).toEqual([]);
    const ledger = (await emu.accounts.get('acct_unit')).ledger.filter((r) => r.type === 'reserve');
    expect(ledger.map((r) => r.generation_id)).toEqual([submitted.generation_id]);
  });

  it('faults: a reset after enqueue is a connection error to the client; its resend with the key is replayed, not billed again', async () => {
    const { client, emu } = start();
    await emu.faults.add({ endpoint: 'generate', when: 'after', reset: true });
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'x' });
    expect(submitted.generation_id).toMatch(/^[0-9a-f-]{36}$/);
    const reserves = (await emu.accounts.get('acct_unit')).ledger.filter((r) => r.type === 'reserve');
    expect(reserves.length).toBe(1);

    await emu.faults.add({ endpoint: 'models', reset: true });
    const once = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, fetch: emu.fetch, maxRetries: 0 });
    await expect(once.models.list()).rejects.toBeInstanceOf(ConnectionError);
  });

  it('the clock: three days later the output link has expired (410 LINK_EXPIRED); a fresh read signs a new one', async () => {
    const { client, emu } = start();
    const done = await client.generations.run({ model: 'image-fast', prompt: 'x' });
    await emu.clock.advance(3 * 86_400_000 + 1_000);
    const stale = await emu.fetch(done.output_url as string);
    expect([stale.status, (await stale.json()).error]).toEqual([410, 'LINK_EXPIRED']);
    const fresh = await client.generations.get(done.generation_id);
    expect((await emu.fetch(fresh.output_url as string)).status).toBe(200);
  });

  it('controls are validated as over HTTP, and reset() returns to the start state', async () => {
    const { client, emu } = start();
    await expect(emu.clock.advance(-1)).rejects.toMatchObject({ status: 422, code: 'INVALID_BODY' });
    await expect(emu.faults.add({ endpoint: 'nope' as 'any' })).rejects.toBeInstanceOf(EmulatorControlError);
    await expect(emu.accounts.update('acct_unit', { balance: -5 })).rejects.toMatchObject({ code: 'INVALID_BODY' });
    await emu.accounts.update('acct_unit', { balance: 3 });
    await expect(client.generations.create({ model: 'image-fast', prompt: 'x', number_results: 2 })).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
    });
    await emu.reset();
    expect((await emu.accounts.get('acct_unit')).balance).toBe(1000);
    await expect(emu.deliveries.settled('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("the caller's signal ends a request held by a delay fault, as over the network; the client's timeout too", async () => {
    emu = createEmulator({ config: { accounts: [account()] } });
    // A minute's delay: the abort and the 500 ms timeout end the waits long before, however loaded the machine.
    await emu.faults.add({ endpoint: 'models', delayMs: 60_000, count: 2 });
    const controller = new AbortController();
    const pending = emu.fetch(`${emu.url}/api/v1/models`, { headers: { authorization: `Bearer ${KEY}` }, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, fetch: emu.fetch, timeoutMs: 500, maxRetries: 0 });
    await expect(client.models.list()).rejects.toBeInstanceOf(TimeoutError);
  });

  it('emu.fetch answers only under its own address (other hosts are unreachable), and bounds bodies as the server does', async () => {
    emu = createEmulator({ config: { accounts: [account()] } });
    await expect(emu.fetch('http://elsewhere.test/api/v1/models')).rejects.toBeInstanceOf(TypeError);
    const big = await emu.fetch(`${emu.url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-fast', prompt: 'x'.repeat(2_000_000) }),
    });
    expect([big.status, (await big.json()).error]).toEqual([413, 'INVALID_BODY']);
  });
});

describe('one router: the in-process fetch answers exactly as the server', () => {
  const cases: Array<[string, string, Record<string, string>, string | undefined]> = [
    ['GET', '/api/v1/models', { authorization: `Bearer ${KEY}` }, undefined],
    ['GET', '/api/v1/credits', {}, undefined],
    ['GET', '/api/v1/credits', { authorization: 'Bearer nope' }, undefined],
    ['POST', '/api/v1/generate', { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, '{"model":"image-fast"'],
    [
      'POST',
      '/api/v1/generate',
      { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      '{"model":"image-fast","prompt":"x","colour":1}',
    ],
    [
      'POST',
      '/api/v1/generate',
      { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      '{"model":"image-pro","prompt":"x","size":"1x1"}',
    ],
    [
      'POST',
      '/api/v1/generate',
      { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      '{"model":"image-fast","prompt":"x","estimate":true}',
    ],
    ['DELETE', '/api/v1/models', { authorization: `Bearer ${KEY}` }, undefined],
    ['GET', '/api/v1/generations/%ZZ', { authorization: `Bearer ${KEY}` }, undefined],
    ['GET', '/api/v1/output/a/1/b/0/c.png', {}, undefined],
    ['GET', '/nowhere', {}, undefined],
    ['POST', '/__emulator/clock', { 'content-type': 'text/plain' }, '{"advanceMs":1}'],
    ['POST', '/__emulator/faults', { 'content-type': 'application/json' }, '{"endpoint":"nope"}'],
  ];

  it.each(cases)('%s %s', async (method, path, headers, body) => {
    const config = { timeScale: 0.001, accounts: [account()] };
    const server = await startEmulator({ port: 0, config });
    emu = createEmulator({ config });
    try {
      const norm = async (r: Response) => {
        const h = Object.fromEntries([...r.headers].filter(([k]) => !['date', 'connection', 'keep-alive', 'x-request-id'].includes(k)));
        const text = await r.text();
        const json = h['content-type']?.includes('json') ? JSON.parse(text) : text;
        if (json && typeof json === 'object') delete json.request_id;
        return { status: r.status, headers: h, json };
      };
      const overNetwork = await norm(await fetch(server.url + path, { method, headers, body }));
      const inProcess = await norm(await emu.fetch(emu.url + path, { method, headers, body }));
      expect(inProcess).toEqual(overNetwork);
    } finally {
      await server.close();
    }
  });
});

describe('one router, as a property: any request gets the same answer in-process and over HTTP', () => {
  it('status, content type and error code agree on arbitrary method, path, credentials and body', async () => {
    const config = { timeScale: 0.001, accounts: [account({ balance: 40 })] };
    const server = await startEmulator({ port: 0, config });
    emu = createEmulator({ config });
    const inProcess = emu;
    const segment = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._~%-]{0,10}$/),
      fc.constantFrom('generate', 'models', 'credits', 'generations', 'output'),
    );
    const path = fc.oneof(
      fc.constantFrom(
        '/api/v1/generate',
        '/api/v1/models',
        '/api/v1/credits',
        '/__emulator/clock',
        '/__emulator/faults',
        '/__emulator/reset',
      ),
      fc
        .tuple(
          fc.constantFrom('/api/v1/', '/api/v1/generations/', '/api/v1/output/', '/__emulator/accounts/', '/'),
          fc.array(segment, { maxLength: 5 }),
        )
        .map(([prefix, parts]) => prefix + parts.join('/')),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json({ maxDepth: 3 }),
      fc
        .record({
          model: fc.constantFrom('image-fast', 'image-pro', 'nope'),
          prompt: fc.string({ maxLength: 20 }),
          estimate: fc.constant(true),
        })
        .map((o) => JSON.stringify(o)),
    );
    const auth = fc.constantFrom<Record<string, string>>({}, { authorization: `Bearer ${KEY}` }, { authorization: 'Bearer svc_live_nope' });
    try {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('GET', 'POST', 'DELETE', 'HEAD'), path, auth, body, async (method, p, headers, b) => {
          const init = (): RequestInit => ({
            method,
            headers: {
              ...headers,
              ...(b !== undefined && method !== 'GET' && method !== 'HEAD' ? { 'content-type': 'application/json' } : {}),
            },
            ...(b !== undefined && method !== 'GET' && method !== 'HEAD' ? { body: b } : {}),
          });
          const view = async (r: Response) => {
            const text = await r.text();
            const type = r.headers.get('content-type') ?? '';
            return {
              status: r.status,
              type,
              error: type.includes('json') && text ? (JSON.parse(text) as { error?: string }).error : undefined,
            };
          };
          const a = await view(await fetch(server.url + p, init()));
          const c = await view(await inProcess.fetch(inProcess.url + p, init()));
          expect(c).toEqual(a);
        }),
        { numRuns: 150 },
      );
    } finally {
      await server.close();
    }
  });
});
