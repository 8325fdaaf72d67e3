/**
 * The MSW handlers as an app whose tests already use Mock Service Worker wires them: the app's
 * code calls the global `fetch` (no custom fetch, no port) and `setupServer` answers every
 * request under the emulator's address from the in-process emulator.
 */
import { ConnectionError, GenerationFailedError, MediaGenClient } from '@mediagen/core';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../src/index.js';
import { mediagenHandlers } from '../src/msw.js';

const KEY = 'svc_live_msw';
const emu = createEmulator({
  config: { timeScale: 0.001, accounts: [{ id: 'acct_msw', tier: 'pro', balance: 500, keys: [{ key: KEY }] }] },
});
// The app's other mocks sit beside the emulator's.
const server = setupServer(
  ...mediagenHandlers(emu),
  http.get('https://api.example.test/me', () => HttpResponse.json({ id: 'u1' })),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  server.resetHandlers();
  await emu.reset();
});
afterAll(async () => {
  server.close();
  await emu.close();
});

const client = () => new MediaGenClient({ apiKey: KEY, baseUrl: emu.url });

describe('mediagenHandlers: the emulator behind msw/node', () => {
  it('the app submits, waits and downloads through the global fetch', async () => {
    const done = await client().generations.run({ model: 'image-fast', prompt: 'a fox', seed: 3 });
    expect(done.status).toBe('completed');
    const png = await (await fetch(done.output_url as string)).arrayBuffer();
    expect([...new Uint8Array(png).subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    expect((await (await fetch('https://api.example.test/me')).json()).id).toBe('u1');
    expect((await emu.accounts.get('acct_msw')).balance).toBe(500 - done.credits_used);
  });

  it('a failed generation and a typed submit error, as the service gives them', async () => {
    await expect(client().generations.run({ model: 'image-fast', prompt: '[[fail:content_blocked]]' })).rejects.toBeInstanceOf(
      GenerationFailedError,
    );
    await expect(client().generations.create({ model: 'image-fast', prompt: '[[blocked]]' })).rejects.toMatchObject({
      status: 400,
      code: 'CONTENT_POLICY_VIOLATION',
    });
  });

  it("a reset fault is MSW's network error: the client sees a ConnectionError and its keyed resend bills once", async () => {
    await emu.faults.add({ endpoint: 'credits', reset: true });
    const noRetry = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, maxRetries: 0 });
    await expect(noRetry.credits.get()).rejects.toBeInstanceOf(ConnectionError);

    await emu.faults.add({ endpoint: 'generate', when: 'after', reset: true });
    const submitted = await client().generations.create({ model: 'image-fast', prompt: 'x' });
    const reserves = (await emu.accounts.get('acct_msw')).ledger.filter((r) => r.type === 'reserve');
    expect(reserves.map((r) => r.generation_id)).toEqual([submitted.generation_id]);
  });

  it('the test controls are reachable over the mocked address too', async () => {
    const before = Date.now();
    const r = await fetch(`${emu.url}/__emulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceMs: 60_000 }),
    });
    expect((await r.json()).offset_ms).toBe(60_000);
    expect((await emu.clock.now()).getTime()).toBeGreaterThanOrEqual(before + 60_000);
  });
});
