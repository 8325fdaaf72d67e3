import { createEmulator, type InProcessEmulator } from '@mediagen/emulator';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionError, MediaGenClient, RESPONSE, type RequestHookInfo, type ResponseHookInfo, ServerError } from '../src/index';

// onRequest / onResponse against the real emulator (in process): every HTTP attempt is seen,
// resends included, never the Authorization header, and a hook that throws changes nothing sent.

const API_KEY = 'svc_live_hooks_secret_key_0123456789';
const ACCOUNT = 'acct_hooks';

const emu: InProcessEmulator = createEmulator({
  config: { timeScale: 0.001, accounts: [{ id: ACCOUNT, tier: 'pro', balance: 1_000, keys: [{ key: API_KEY }] }] },
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

/** Reservations the account was billed: one per generation the emulator accepted. */
const reserves = async () => (await emu.accounts.get(ACCOUNT)).ledger.filter((row) => row.type === 'reserve');

/** A client on the emulator whose hooks record what they are given. */
function recording() {
  const requests: RequestHookInfo[] = [];
  const responses: ResponseHookInfo[] = [];
  const client = new MediaGenClient({
    apiKey: API_KEY,
    baseUrl: emu.url,
    fetch: emu.fetch,
    onRequest: (info) => void requests.push(info),
    onResponse: (info) => void responses.push(info),
  });
  return { client, requests, responses };
}

const GENERATE = `${emu.url}/api/v1/generate`;

describe('onRequest / onResponse', () => {
  it('a 500 then its resend: two attempts of one submit, the same idempotency key, statuses and request ids', async () => {
    await emu.faults.add({ endpoint: 'generate', count: 1, status: 500 });
    const { client, requests, responses } = recording();
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'a lighthouse' });

    // Validation reads the model list first (no key: a read), then the submit and its resend.
    expect(requests.map((r) => [r.method, r.url, r.attempt])).toEqual([
      ['GET', `${emu.url}/api/v1/models`, 1],
      ['POST', GENERATE, 1],
      ['POST', GENERATE, 2],
    ]);
    const [models, first, second] = requests;
    expect(models?.idempotencyKey).toBeUndefined();
    expect(first?.idempotencyKey).toBe(submitted[RESPONSE].idempotencyKey);
    expect(second?.idempotencyKey).toBe(submitted[RESPONSE].idempotencyKey);
    expect(second?.headers['idempotency-key']).toBe(submitted[RESPONSE].idempotencyKey);
    expect(second?.headers['content-type']).toBe('application/json');

    expect(responses.map((r) => [r.method, r.url, r.attempt, r.status])).toEqual([
      ['GET', `${emu.url}/api/v1/models`, 1, 200],
      ['POST', GENERATE, 1, 500],
      ['POST', GENERATE, 2, 202],
    ]);
    const [, failed, accepted] = responses;
    expect(failed?.error).toBeInstanceOf(ServerError);
    expect(failed?.error?.code).toBe('INTERNAL_ERROR');
    expect(failed?.requestId).toMatch(/\S/);
    expect(accepted?.error).toBeUndefined();
    expect(accepted?.idempotencyKey).toBe(submitted[RESPONSE].idempotencyKey);
    expect(accepted?.requestId).toBe(submitted[RESPONSE].requestId);
    expect(failed?.requestId).not.toBe(accepted?.requestId);
    for (const response of responses) expect(response.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(await reserves()).toHaveLength(1);
  });

  it('an answer lost after billing: the hook sees no status and the ConnectionError, the resend answers the same generation', async () => {
    await emu.faults.add({ endpoint: 'generate', count: 1, when: 'after', reset: true });
    const { client, requests, responses } = recording();
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'x' });

    const submits = responses.filter((r) => r.url === GENERATE);
    expect(submits.map((r) => [r.attempt, r.status, r.error?.constructor])).toEqual([
      [1, undefined, ConnectionError],
      [2, 202, undefined],
    ]);
    expect(submits[0]?.requestId).toBeUndefined();
    const keys = requests.filter((r) => r.url === GENERATE).map((r) => r.idempotencyKey);
    expect(keys).toEqual([submitted[RESPONSE].idempotencyKey, submitted[RESPONSE].idempotencyKey]);
    // The first attempt was billed; its resend is answered with that generation, not a new one.
    expect((await reserves()).map((row) => row.generation_id)).toEqual([submitted.generation_id]);
  });

  it('never sees the Authorization header or the API key, and changing the copy changes nothing sent', async () => {
    const seen: string[] = [];
    const client = new MediaGenClient({
      apiKey: API_KEY,
      baseUrl: emu.url,
      fetch: emu.fetch,
      onRequest: (info) => {
        seen.push(JSON.stringify(info));
        // Were this the sent object, the emulator would answer 401 and refuse the key.
        info.headers.authorization = 'Bearer svc_live_someone_else';
        info.headers['idempotency-key'] = 'changed-by-a-hook';
      },
      onResponse: (info) => void seen.push(JSON.stringify(info)),
    });
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: 'hooks-key-1' });
    const read = await client.generations.get(submitted.generation_id);
    expect(read.generation_id).toBe(submitted.generation_id);
    expect(submitted[RESPONSE].idempotencyKey).toBe('hooks-key-1');
    expect(seen.length).toBe(6); // models, submit, status read: a request and a response each
    const text = seen.join('\n');
    expect(text).not.toContain(API_KEY);
    expect(text).not.toMatch(/authorization|bearer/i);
    // The resend of the same key answers the same generation: the key sent was never the hook's.
    const again = await client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: 'hooks-key-1' });
    expect(again.generation_id).toBe(submitted.generation_id);
    expect(await reserves()).toHaveLength(1);
  });

  it('hooks that throw or reject: the submit goes once, bills once, and the failure is logged at warn without the key', async () => {
    const warnings: string[] = [];
    const attempts: number[] = [];
    let calls = 0;
    const client = new MediaGenClient({
      apiKey: API_KEY,
      baseUrl: emu.url,
      fetch: emu.fetch,
      logLevel: 'warn',
      logger: { warn: (message) => warnings.push(message) },
      onRequest: (info) => {
        if (info.url === GENERATE) attempts.push(info.attempt);
        throw new Error(`hook broke while holding ${API_KEY}`);
      },
      // An async hook's rejection must not become an unhandled rejection (vitest fails the run on one).
      onResponse: async () => {
        calls++;
        throw new TypeError('async hook broke');
      },
    });
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'x' });
    expect(submitted.generation_id).toEqual(expect.any(String));
    expect(attempts).toEqual([1]);
    expect(calls).toBe(2); // the model list and the submit
    expect(await reserves()).toHaveLength(1);
    // The warnings are written once the rejections settle.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.includes('onRequest threw'))).toHaveLength(2);
    expect(warnings.filter((w) => w.includes('onResponse threw: async hook broke'))).toHaveLength(2);
    expect(warnings.join('\n')).not.toContain(API_KEY);
  });

  it('an onRetry that throws after a billed answer was lost: the resend still goes, one generation, one bill', async () => {
    // 500 after enqueue: the service billed the generation and the answer says otherwise.
    await emu.faults.add({ endpoint: 'generate', count: 1, status: 500, when: 'after' });
    const warnings: string[] = [];
    const client = new MediaGenClient({
      apiKey: API_KEY,
      baseUrl: emu.url,
      fetch: emu.fetch,
      logLevel: 'warn',
      logger: { warn: (message) => warnings.push(message) },
      onRetry: () => {
        throw new Error('retry hook broke');
      },
    });
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'x' });
    expect(submitted.generation_id).toEqual(expect.any(String));
    expect(await reserves()).toHaveLength(1);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.includes('onRetry threw: retry hook broke'))).toHaveLength(1);
  });

  it('output-link downloads are not hooked: their URL is a credential', async () => {
    const { client, requests, responses } = recording();
    const done = await client.generations.run({ model: 'image-fast', prompt: 'x' }, { intervalMs: 5 });
    const before = requests.length;
    const bytes = await client.generations.download(done);
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(requests.length).toBe(before);
    expect(responses.length).toBe(before);
    for (const info of [...requests, ...responses]) expect(info.url).not.toContain('/output/');
  });
});
