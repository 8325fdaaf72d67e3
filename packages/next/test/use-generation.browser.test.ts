import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';

/**
 * The re-exported hook in a real browser with real React: the BUILT client entry, bundled with
 * react-dom into a page, against routes served here, which count requests and overlaps. The
 * polling tests pass `stream: false` (or a `url`, which implies polling); the first one pins that
 * the default follows the event stream and reads no status while it serves.
 */
const PAGE_SOURCE = `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { useGeneration } from '${fileURLToPath(new URL('../dist/hooks.js', import.meta.url))}';
const root = createRoot(document.getElementById('root'));
function View({ id, options }) {
  const state = useGeneration(id, options);
  return h('pre', { id: 'state' }, JSON.stringify({ status: state.status ?? null, outputs: state.outputs, error: state.error ?? null, terminal: state.isTerminal }));
}
window.mount = (id, options) => root.render(h(View, { id, options }));
window.unmount = () => root.unmount();
`;

interface Script {
  /** Answers in order; the last one repeats. */
  answers: Array<{ status: number; body: unknown }>;
  delayMs: number;
}

describe('useGeneration in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let origin: string;
  let close: () => Promise<void>;
  let script: Script;
  let streamed: unknown[] = [];
  let requests: { at: number; path: string }[];
  let inFlight = 0;
  let maxInFlight = 0;

  beforeAll(async () => {
    const bundle = await build({
      stdin: { contents: PAGE_SOURCE, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
      bundle: true,
      format: 'iife',
      write: false,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    const js = bundle.outputFiles[0]!.text;
    const server = createServer(async (req, res) => {
      if (req.url === '/')
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<div id="root"></div><script src="/app.js"></script>');
      if (req.url === '/favicon.ico') return res.writeHead(404).end();
      if (req.url === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      if (req.url?.endsWith('/events')) {
        requests.push({ at: Date.now(), path: req.url });
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        for (const [index, body] of streamed.entries()) res.write(`id: ${index + 1}\ndata: ${JSON.stringify(body)}\n\n`);
        return res.end();
      }
      requests.push({ at: Date.now(), path: req.url ?? '' });
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const answer = script.answers[Math.min(requests.length - 1, script.answers.length - 1)]!;
      await new Promise((resolve) => setTimeout(resolve, script.delayMs));
      inFlight -= 1;
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await close?.();
  });
  beforeEach(async () => {
    requests = [];
    maxInFlight = 0;
    page = await browser.newPage();
    await page.goto(origin + '/');
  });

  const generation = (status: string, extra: object = {}) => ({
    generation_id: 'g1',
    model: 'image-fast',
    status,
    output_url: null,
    output_urls: null,
    ...extra,
  });
  const state = async () => JSON.parse((await page.locator('#state').textContent()) ?? 'null');

  it('by default follows the event stream (GET /api/generations/:id/events) and reads no status', async () => {
    const url = 'https://cdn.example/streamed.png';
    script = { delayMs: 0, answers: [{ status: 500, body: { error: 'INTERNAL_ERROR' } }] };
    streamed = [generation('processing'), generation('completed', { output_url: url, output_urls: [url] })];
    await page.evaluate(() => (window as any).mount('g1', {}));
    await expect.poll(state).toMatchObject({ status: 'completed', outputs: [url], terminal: true });
    expect(requests.map((r) => r.path)).toEqual(['/api/generations/g1/events']);
  });

  it('polls one request at a time until terminal, then stops, exposing status and outputs', async () => {
    const url = 'https://cdn.example/out.png';
    script = {
      delayMs: 120,
      answers: [
        { status: 200, body: generation('pending') },
        { status: 503, body: { error: 'SERVICE_UNAVAILABLE' } },
        { status: 200, body: generation('processing') },
        { status: 200, body: generation('completed', { output_url: url, output_urls: [url] }) },
      ],
    };
    await page.evaluate(() => (window as any).mount('g1', { intervalMs: 40, stream: false }));
    await expect.poll(state).toMatchObject({ status: 'completed', outputs: [url], terminal: true });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(requests.map((r) => r.path)).toEqual(Array(4).fill('/api/generations/g1'));
    expect(maxInFlight).toBe(1);
  });

  it('stops on unmount', async () => {
    script = { delayMs: 0, answers: [{ status: 200, body: generation('pending') }] };
    await page.evaluate(() => (window as any).mount('g1', { intervalMs: 50, url: '/status' }));
    await expect.poll(() => requests.length).toBeGreaterThanOrEqual(2);
    await page.evaluate(() => (window as any).unmount());
    const count = requests.length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(requests.length).toBeLessThanOrEqual(count + 1);
    expect(requests[0]!.path).toBe('/status/g1');
  });

  it('a refusal (404) stops polling and is the error; a failed generation exposes its own error', async () => {
    script = {
      delayMs: 0,
      answers: [{ status: 404, body: { error: 'NOT_FOUND', message: 'No such generation.', next: 'Check the id.' } }],
    };
    await page.evaluate(() => (window as any).mount('g1', { intervalMs: 30, stream: false }));
    await expect.poll(state).toMatchObject({ error: { code: 'NOT_FOUND', status: 404 }, terminal: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requests).toHaveLength(1);

    requests = [];
    script = {
      delayMs: 0,
      answers: [
        { status: 200, body: generation('failed', { error: { code: 'CONTENT_POLICY_VIOLATION', message: 'flagged', retryable: false } }) },
      ],
    };
    await page.evaluate(() => (window as any).mount('g2', { intervalMs: 30, stream: false }));
    await expect.poll(state).toMatchObject({ status: 'failed', error: { code: 'CONTENT_POLICY_VIOLATION' }, terminal: true });
  });

  it("waits the contract's interval by default: 2 s for images, 4 s for video", async () => {
    script = { delayMs: 0, answers: [{ status: 200, body: generation('pending') }] };
    // Each generation's own reads (by path): however late this test looks, a third read of one
    // cannot hide its first two.
    const readsOf = (id: string) => requests.filter((r) => r.path.endsWith(`/${id}`));
    await page.evaluate(() => (window as any).mount('g1', { kind: 'image', stream: false }));
    await expect.poll(() => readsOf('g1').length).toBeGreaterThanOrEqual(2);
    await page.evaluate(() => (window as any).mount('g2', { kind: 'video', stream: false }));
    await expect.poll(() => readsOf('g2').length).toBeGreaterThanOrEqual(2);
    await page.evaluate(() => (window as any).unmount());
    // Timers never fire early: the gaps are at least the interval (upper bounds are not asserted).
    const [image, video] = [readsOf('g1'), readsOf('g2')];
    expect(image[1]!.at - image[0]!.at).toBeGreaterThanOrEqual(1_990);
    expect(video[1]!.at - video[0]!.at).toBeGreaterThanOrEqual(3_990);
  });
});
