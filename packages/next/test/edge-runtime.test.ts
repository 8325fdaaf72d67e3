import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { payload, SECRET, signedRequest } from './support/delivery';

/**
 * The route handler entry must run where Node's built-ins do not exist (edge runtime, Workers):
 * the BUILT entry, bundled for the neutral platform (a static `node:` import fails the bundle),
 * runs in a context holding only Web APIs (no `process`, no `require`, no Buffer).
 */
const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

async function bundleForEdge(): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    format: 'iife',
    globalName: 'MediaGenNext',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

function webOnlyContext() {
  return createContext({
    Headers,
    Request,
    Response,
    ReadableStream,
    Blob,
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

describe('the route handler on a Web-only runtime', () => {
  it('bundles with no node: import; the webhook route and the catch-all verify, de-duplicate and refuse with only Web APIs', async () => {
    const code = await bundleForEdge();
    // Static imports only: core may probe `process.getBuiltinModule('node:crypto')` where it exists.
    expect(code).not.toMatch(/(require\(|import\(|from\s*)["']node:/);
    const context = webOnlyContext();
    runInContext(code, context);
    const body = payload();
    const good = await signedRequest(body);
    const raw = await good.text();
    const headers = Object.fromEntries(good.headers);
    const forged = { ...headers, 'x-service-signature': `sha256=${'0'.repeat(64)}` };
    const result = await runInContext(
      `(async () => {
        if (typeof process !== 'undefined' || typeof require !== 'undefined' || typeof Buffer !== 'undefined') throw new Error('not an edge context');
        const seen = [];
        const POST = MediaGenNext.createWebhookHandler({ secrets: ${JSON.stringify(SECRET)}, onEvent: (event) => { seen.push(event.type + ' ' + event.data.generation_id); } });
        const send = (headers) => POST(new Request('https://edge.example/api/webhooks/mediagen', { method: 'POST', headers, body: ${JSON.stringify(raw)} }));
        const first = await send(${JSON.stringify(headers)});
        const again = await send(${JSON.stringify(headers)});
        const bad = await send(${JSON.stringify(forged)});
        // The catch-all route (the one handler) serving the receiver, on the same Web-only runtime.
        const published = [];
        const client = { events: { publish: (event) => published.push(event.data.generation_id) } };
        const routes = MediaGenNext.createRouteHandler({ client, webhook: { secrets: ${JSON.stringify(SECRET)} }, onError: () => {} });
        const viaCatchAll = await routes.POST(new Request('https://edge.example/api/webhooks/mediagen', { method: 'POST', headers: ${JSON.stringify(headers)}, body: ${JSON.stringify(raw)} }));
        const elsewhere = await routes.GET(new Request('https://edge.example/api/nothing-here'));
        return { statuses: [first.status, again.status, bad.status, viaCatchAll.status, elsewhere.status], again: await again.json(), seen, published };
      })()`,
      context,
    );
    expect(result.statuses).toEqual([200, 200, 401, 200, 404]);
    expect(result.published).toEqual([body.generation_id]);
    expect(result.again).toEqual({ received: true, duplicate: true });
    expect(result.seen).toEqual([`generation.completed ${body.generation_id}`]);
  });
});
