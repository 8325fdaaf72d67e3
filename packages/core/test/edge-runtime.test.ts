import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { generationBody, json, startScriptedServer } from './support/scripted-server';

/**
 * Core must run where Node's built-ins do not exist (Vercel/Cloudflare edge, Deno deploy).
 * Bundling for the neutral platform fails on any static `node:` import; running the bundle in a
 * context holding only Web APIs (no `process`, no `require`) proves nothing reaches for Node.
 */
const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));

async function bundleForEdge(): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'neutral',
    format: 'iife',
    globalName: 'MediaGen',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

function webOnlyContext() {
  return createContext({
    fetch,
    Headers,
    Request,
    Response,
    AbortController,
    AbortSignal,
    crypto: globalThis.crypto,
    TextEncoder,
    TextDecoder,
    URL,
    setTimeout,
    clearTimeout,
    console,
  });
}

const server = await startScriptedServer((req, res) =>
  req.method === 'POST'
    ? json(res, 202, {
        generation_id: 'g-edge',
        status: 'pending',
        model: 'image-fast',
        credits_estimate: 4,
        pricing_source: 'catalog_default',
        created_at: '',
      })
    : json(res, 200, generationBody('completed')),
);
afterAll(() => server.close());

describe('edge runtime', () => {
  it('bundles for the neutral platform and runs with only Web APIs', async () => {
    const code = await bundleForEdge();
    expect(code).not.toMatch(/require\(["']node:/);
    const context = webOnlyContext();
    runInContext(code, context);
    const result = await runInContext(
      `(async () => {
        if (typeof process !== 'undefined' || typeof require !== 'undefined') throw new Error('not an edge context');
        const client = new MediaGen.MediaGenClient({ apiKey: 'svc_live_edge', baseUrl: ${JSON.stringify(server.url)}, validate: false });
        const submitted = await client.generations.create({ model: 'image-fast', prompt: 'edge' });
        const generation = await client.generations.get(submitted.generation_id);
        return { id: submitted.generation_id, key: submitted[MediaGen.RESPONSE].idempotencyKey, status: generation.status };
      })()`,
      context,
    );
    expect(result.id).toBe('g-edge');
    expect(result.status).toBe('completed');
    expect(result.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer svc_live_edge');
  });
});
