import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createViteServer } from 'vitest/node';
import { CHROMIUM, FLAGS, requireChromium } from './support/chromium';

const APP = fileURLToPath(new URL('../', import.meta.url));
const OUTPUT = fileURLToPath(new URL('../test-output/', import.meta.url));
const HARNESS = 'virtual:gallery-harness';

/**
 * The studio's real Gallery (app/studio/Gallery.tsx, compiled by Vite, which vitest is built
 * on) with real React in Chromium, under a parent that re-renders without changing the list:
 * what a settled card reports must not depend on how often its parent renders.
 */
const HARNESS_SOURCE = `
import { createElement as h, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Gallery } from '/app/studio/Gallery.tsx';

const kinds = { 'image-fast': 'image' };
window.settled = [];
const onSettled = (g) => window.settled.push({ id: g.generation_id, status: g.status });
let bump = () => {};
function Host({ generations }) {
  const [renders, setRenders] = useState(0);
  bump = () => setRenders((n) => n + 1);
  return h('div', { id: 'host', 'data-renders': String(renders) }, h(Gallery, { generations, kinds, onSettled }));
}
const root = createRoot(document.getElementById('root'));
window.mount = (generations) => root.render(h(Host, { generations }));
window.rerender = () => bump();
window.harnessReady = true;
`;

// A 1x1 transparent PNG for the output link.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

describe('the Gallery in Chromium (real React), under a parent that re-renders', () => {
  let browser: Browser;
  let http: Server;
  let origin: string;
  let closeVite: () => Promise<void>;
  let scratch: string;
  const id = randomUUID();
  const createdAt = new Date().toISOString();

  beforeAll(async () => {
    requireChromium();
    scratch = mkdtempSync(join(tmpdir(), 'next-sample-gallery-'));
    const vite = await createViteServer({
      configFile: false,
      root: APP,
      cacheDir: join(scratch, 'vite'),
      logLevel: 'error',
      appType: 'custom',
      server: { middlewareMode: true, hmr: false, ws: false },
      // Only these are pre-bundled (React is CommonJS); no discovery, so no reload mid-test.
      optimizeDeps: { include: ['react', 'react/jsx-runtime', 'react/jsx-dev-runtime', 'react-dom/client'], noDiscovery: true },
      plugins: [
        {
          name: 'gallery-harness',
          resolveId: (source: string) => (source === HARNESS ? `\0${HARNESS}` : undefined),
          load: (loaded: string) => (loaded === `\0${HARNESS}` ? HARNESS_SOURCE : undefined),
        },
      ],
    });
    closeVite = () => vite.close();
    http = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/')
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<!doctype html><div id="root"></div><script type="module" src="/@id/__x00__${HARNESS}"></script>`);
      if (path === '/favicon.ico') return res.writeHead(404).end();
      if (path === '/out.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      // useGeneration's event stream (and its status read, the fallback): the generation is done.
      const done = JSON.stringify({
        generation_id: id,
        status: 'completed',
        model: 'image-fast',
        output_url: `${origin}/out.png`,
        output_urls: [`${origin}/out.png`],
        credits_used: 4,
        created_at: createdAt,
        completed_at: new Date().toISOString(),
        error: null,
      });
      if (path === `/api/generations/${id}/events`)
        return res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' }).end(`id: 1\ndata: ${done}\n\n`);
      if (path === `/api/generations/${id}`) return res.writeHead(200, { 'content-type': 'application/json' }).end(done);
      vite.middlewares(req, res, () => res.writeHead(404).end());
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
    await closeVite?.();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('a card that settles tells the list once, however often its parent renders afterwards', async () => {
    const page: Page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (window as unknown as { harnessReady?: boolean }).harnessReady === true, undefined, {
      timeout: 30_000,
    });
    const stored = {
      generation_id: id,
      model: 'image-fast',
      params: { prompt: 'a lighthouse' },
      status: 'pending',
      output_url: null,
      output_urls: null,
      credits_used: 4,
      error: null,
      created_at: createdAt,
      completed_at: null,
      available: true,
    };
    await page.evaluate((list) => (window as unknown as { mount(l: unknown): void }).mount(list), [stored]);
    // The hook's stream brings the terminal state.
    await page.locator(`#list li[data-id="${id}"][data-status="completed"] img`).waitFor({ timeout: 15_000 });
    const settled = () => page.evaluate(() => (window as unknown as { settled: unknown[] }).settled);
    await expect.poll(settled).toEqual([{ id, status: 'completed' }]);

    // The parent renders again (a keystroke in the form, a balance update) with the same list.
    for (let n = 1; n <= 5; n++) {
      await page.evaluate(() => (window as unknown as { rerender(): void }).rerender());
      await page.waitForFunction((want) => document.getElementById('host')?.dataset.renders === String(want), n);
    }
    expect(await settled()).toEqual([{ id, status: 'completed' }]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a generation the service no longer knows shows "No longer available", never a broken image', async () => {
    const page: Page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (window as unknown as { harnessReady?: boolean }).harnessReady === true, undefined, {
      timeout: 30_000,
    });
    const gone = randomUUID();
    const forgotten = {
      generation_id: gone,
      model: 'image-fast',
      params: { prompt: 'made before the service restarted' },
      status: 'completed',
      output_url: null,
      output_urls: null,
      credits_used: 4,
      error: null,
      created_at: createdAt,
      completed_at: createdAt,
      available: false,
    };
    await page.evaluate((list) => (window as unknown as { mount(l: unknown): void }).mount(list), [forgotten]);
    const card = page.locator(`#list li[data-id="${gone}"][data-available="false"]`);
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator('img').count()).toBe(0);
    expect(await card.getByRole('img', { name: 'No longer available' }).textContent()).toBe('No longer available');
    expect(await card.locator('.prompt').textContent()).toBe('made before the service restarted');
    // The studio's stylesheet (the harness page has none), for a screenshot that looks like the app.
    await page.addStyleTag({ path: join(APP, 'app/globals.css') });
    await page.setViewportSize({ width: 420, height: 520 });
    mkdirSync(OUTPUT, { recursive: true });
    await card.screenshot({ path: join(OUTPUT, 'gallery-unavailable.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
