import { MediaGenClient } from '@mediagen/core';
import { ENDPOINTS, matchEndpoint, NO_SUCH_ROUTE_NEXT } from '@mediagen/core/wire';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emu, emulator, KEY, proAccount } from './helpers.js';

/**
 * The contract's one endpoint table (`ENDPOINTS`) is what the client sends to and what the
 * emulator routes, over real HTTP: every request the client makes goes to a row (method and
 * path), every row is routed by the emulator, and no path the table lacks is.
 */
let emu: Emu;
const sent: { method: string; path: string }[] = [];
let client: MediaGenClient;
beforeAll(async () => {
  emu = await emulator({ timeScale: 0.001, accounts: [proAccount()] });
  const recording: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    sent.push({ method: init?.method ?? 'GET', path: url.pathname });
    return fetch(input, init);
  };
  client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, maxRetries: 0, fetch: recording });
});
afterAll(() => emu.close());

describe('ENDPOINTS: the client and the emulator read one table', () => {
  it("every request of the client's whole surface goes to a row of the table, with the row's method", async () => {
    await client.models.list();
    await client.credits.get();
    await client.generations.estimate({ model: 'image-fast', prompt: 'a cat' });
    const done = await client.generations.run({ model: 'image-fast', prompt: 'a cat' }, { intervalMs: 5 });
    await client.generations.download(done);
    await client.generations.get(done.generation_id);
    const used = new Set<string>();
    for (const { method, path } of sent) {
      const matched = matchEndpoint(path);
      expect(matched, path).toBeDefined();
      const name = matched?.name as keyof typeof ENDPOINTS;
      expect(method).toBe(ENDPOINTS[name].method);
      used.add(name);
    }
    // The client reaches every endpoint of the table (a row it never sends to would be dead).
    expect([...used].sort()).toEqual(Object.keys(ENDPOINTS).sort());
  });

  it('the emulator routes every row of the table (never its "no such route" 404 or a 405)', async () => {
    for (const { method, path } of Object.values(ENDPOINTS)) {
      const res = await emu.call(method, path.replace(/\{[^}]*\}/g, 'x1'), { body: method === 'POST' ? {} : undefined });
      expect(res.status, path).not.toBe(405);
      expect((res.body as { next?: string } | undefined)?.next, path).not.toBe(NO_SUCH_ROUTE_NEXT);
    }
  });

  it('the emulator routes no path the table lacks (fast-check)', async () => {
    const segment = fc.oneof(fc.constantFrom('api', 'v1', 'generate', 'generations', 'models', 'credits', 'output', 'x', ''), fc.string());
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 8 }), async (segments) => {
        const path = `/${segments.map(encodeURIComponent).join('/')}`;
        if (matchEndpoint(path) || path.startsWith('/__emulator/')) return;
        const res = await emu.call('GET', path);
        expect(res.status).toBe(404);
        expect((res.body as { next?: string }).next).toBe(NO_SUCH_ROUTE_NEXT);
      }),
      { numRuns: 60 },
    );
  });
});
