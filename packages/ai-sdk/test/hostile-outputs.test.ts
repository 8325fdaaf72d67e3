/**
 * The provider against a hostile service: a node:http proxy in front of the emulator that
 * rewrites the completed generation (its output links, its dates) and answers the output links
 * itself when a test says so. Whatever the answer, `generateImage` returns the images asked for
 * or a typed error, in bounded memory.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APICallError } from '@ai-sdk/provider';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { generateImage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createMediaGen } from '../src/index.js';

const KEY = 'svc_live_hostile_outputs';
const PNG = [0x89, 0x50, 0x4e, 0x47];

interface Rewrites {
  /** The completed generation as the app will read it (`base`: the proxy's address, which its links name). */
  generation?(body: Record<string, unknown>, base: string): void;
  /** Answers an output link itself (true), or lets the emulator answer it. */
  output?(req: IncomingMessage, res: ServerResponse): boolean;
}

let emu: RunningEmulator | undefined;
let proxy: Server | undefined;
const portOf = (s: Server | undefined) => (s?.address() as AddressInfo | null | undefined)?.port;
/** Output-link requests that reached the proxy. */
let outputReads = 0;

afterEach(async () => {
  const p = proxy;
  proxy = undefined;
  if (p) {
    p.closeAllConnections();
    await new Promise((resolve) => p.close(resolve));
  }
  await emu?.close();
  emu = undefined;
});

async function hostile(rewrites: Rewrites): Promise<string> {
  emu = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_hostile', tier: 'pro', balance: 10_000, keys: [{ key: KEY }] }] },
  });
  const upstream = emu.url;
  outputReads = 0;
  proxy = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const base = `http://127.0.0.1:${portOf(proxy)}`;
    const url = req.url ?? '/';
    if (url.startsWith('/api/v1/output/')) {
      outputReads++;
      if (rewrites.output?.(req, res)) return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
    }
    const answer = await fetch(upstream + url, {
      method: req.method ?? 'GET',
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    let body = Buffer.from(await answer.arrayBuffer());
    if (url.startsWith('/api/v1/generations/') && answer.ok) {
      // Every link names the proxy, so each output read passes here.
      const generation = JSON.parse(body.toString('utf8').split(upstream).join(base)) as Record<string, unknown>;
      if (generation.status === 'completed') rewrites.generation?.(generation, base);
      body = Buffer.from(JSON.stringify(generation));
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) out[name] = value;
    });
    res.writeHead(answer.status, out);
    res.end(body);
  };
  await new Promise<void>((resolve) => proxy?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${portOf(proxy)}`;
}

const image = (baseUrl: string, settings: { maxOutputBytes?: number } = {}) =>
  createMediaGen({ apiKey: KEY, baseUrl, ...settings }).image('image-fast');
const fastPolls = { mediagen: { pollIntervalMs: 10 } };

describe('output links: as many images as asked, never what the answer says', () => {
  it('a completed generation listing 50 links for n = 1 gives one image, and only one link is read', async () => {
    const base = await hostile({
      generation: (g) => {
        g.output_urls = Array.from({ length: 50 }, () => g.output_url);
      },
    });
    const result = await generateImage({ model: image(base), prompt: 'x', n: 1, providerOptions: fastPolls });
    expect(result.images.length).toBe(1);
    expect(outputReads).toBe(1);
  });

  it('n = 2 and 3 links: the first two', async () => {
    const base = await hostile({
      generation: (g) => {
        const urls = g.output_urls as string[];
        g.output_urls = [...urls, urls[0]];
      },
    });
    const result = await generateImage({ model: image(base), prompt: 'x', n: 2, providerOptions: fastPolls });
    expect(result.images.length).toBe(2);
    expect(outputReads).toBe(2);
  });

  it('output_urls as one string (not a list) is one link: its image, not one read per character', async () => {
    const base = await hostile({
      generation: (g) => {
        g.output_urls = g.output_url;
      },
    });
    const result = await generateImage({ model: image(base), prompt: 'x', providerOptions: fastPolls });
    expect(result.images.length).toBe(1);
    expect([...result.image.uint8Array.subarray(0, 4)]).toEqual(PNG);
  });
});

describe('output bodies: bounded memory', () => {
  it('an output link that never stops sending ends at maxOutputBytes: a typed error naming the generation, not a process out of memory', async () => {
    const chunk = Buffer.alloc(64 * 1024, 1);
    const base = await hostile({
      output: (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' });
        // Endless: writes again each time the socket drains, until the client hangs up.
        const more = () => {
          while (res.write(chunk)) {}
        };
        res.on('drain', more);
        res.on('close', () => res.off('drain', more));
        more();
        return true;
      },
    });
    const e = await generateImage({ model: image(base, { maxOutputBytes: 1 << 20 }), prompt: 'x', providerOptions: fastPolls }).catch(
      (x: unknown) => x,
    );
    expect(APICallError.isInstance(e), String(e)).toBe(true);
    const data = (e as APICallError).data as { code: string; generationId: string; retryable: boolean };
    expect(data.code).toBe('OUTPUT_TOO_LARGE');
    expect(data.generationId).toMatch(/^[0-9a-f-]{36}$/);
    expect((e as APICallError).isRetryable).toBe(false);
  }, 20_000);

  it('an output body that breaks off midway is a typed APICallError naming the generation and the key, not a bare TypeError', async () => {
    const base = await hostile({
      output: (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100000' });
        res.write(Buffer.alloc(1000), () => res.destroy());
        return true;
      },
    });
    const e = await generateImage({ model: image(base), prompt: 'x', providerOptions: fastPolls }).catch((x: unknown) => x);
    expect(APICallError.isInstance(e), String(e)).toBe(true);
    const data = (e as APICallError).data as { code: string; generationId: string; idempotencyKey: string };
    expect(data.code).toBe('CONNECTION_ERROR');
    expect(data.generationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.idempotencyKey).toEqual(expect.any(String));
  });

  it('an output within maxOutputBytes is returned whole', async () => {
    const base = await hostile({});
    const result = await generateImage({ model: image(base, { maxOutputBytes: 1 << 20 }), prompt: 'x', providerOptions: fastPolls });
    expect([...result.image.uint8Array.subarray(0, 4)]).toEqual(PNG);
  });
});

describe('dates from the answer', () => {
  it('a created_at that is no date gives a valid response timestamp, not an Invalid Date', async () => {
    const base = await hostile({
      generation: (g) => {
        g.created_at = 'not a date';
      },
    });
    const result = await generateImage({ model: image(base), prompt: 'x', providerOptions: fastPolls });
    const timestamp = result.responses[0]?.timestamp;
    expect(timestamp instanceof Date && !Number.isNaN(timestamp.getTime())).toBe(true);
    expect(() => timestamp?.toISOString()).not.toThrow();
  });
});

describe("the service's retry verdict", () => {
  it('a failed generation with retryable "false" (a string) is data.retryable false, with no "may succeed" hint', async () => {
    const base = await hostile({});
    // The emulator fails it; the proxy turns the boolean into text.
    const failedProxy = proxy as Server;
    const original = failedProxy.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
    failedProxy.removeAllListeners('request');
    failedProxy.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const end = res.end.bind(res) as (body?: unknown) => ServerResponse;
      (res as { end: unknown }).end = (body?: unknown) => {
        if (Buffer.isBuffer(body) && req.url?.startsWith('/api/v1/generations/')) {
          const g = JSON.parse(body.toString('utf8'));
          if (g.status === 'failed') g.error.retryable = 'false';
          return end(Buffer.from(JSON.stringify(g)));
        }
        return end(body);
      };
      original(req, res);
    });
    const e = (await generateImage({
      model: image(base),
      prompt: 'x [[fail:model_unavailable]]',
      providerOptions: fastPolls,
    }).catch((x: unknown) => x)) as APICallError;
    expect(APICallError.isInstance(e)).toBe(true);
    const data = e.data as { code: string; retryable: unknown; next: unknown };
    expect(data.code).toBe('model_unavailable');
    expect(data.retryable).toBe(false);
    expect(String(data.next)).not.toMatch(/may succeed/i);
  });
});
