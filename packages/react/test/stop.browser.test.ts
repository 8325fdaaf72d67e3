import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type App, startApp } from './support/app';
import { launchChromium } from './support/chromium';

/**
 * `useGenerate().stop()` in Chromium with real React, from the BUILT package, against an app on
 * the generation ledger whose client waits in a gate at the account's concurrency: a submit
 * stopped while it waits is never sent (the handler says charged false), one stopped after its
 * 202 goes on and is billed. Bills are counted from the emulator's account ledger.
 */
const PAGE_SOURCE = `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { useGenerate } from '${fileURLToPath(new URL('../dist/index.js', import.meta.url))}';
function words(stopped) {
  if (!stopped) return '';
  if (stopped.outcome === 'stopped' && stopped.charged === false) return 'Stopped before it was sent: nothing charged';
  if (stopped.outcome === 'unknown') return 'Stopped; it may have been sent and billed';
  return 'Stopped following: it goes on and is billed';
}
function App() {
  const gen = useGenerate({ params: { model: 'image-fast', prompt: new URLSearchParams(location.search).get('prompt') ?? 'a heron' } });
  const state = { waiting: gen.isWaiting, submitting: gen.isSubmitting, id: gen.generation?.generation_id ?? null, stopped: gen.stopped ?? null, error: gen.error ?? null };
  return h('main', { style: { font: '14px system-ui', padding: '16px' } },
    h('button', { id: 'go', onClick: () => gen.submit() }, 'Generate'),
    h('button', { id: 'stop', onClick: () => gen.stop() }, gen.isStopping ? 'Stopping…' : 'Stop'),
    h('p', { id: 'words' }, words(gen.stopped)),
    h('pre', { id: 'state' }, JSON.stringify(state)));
}
createRoot(document.getElementById('root')).render(h(App));
`;

describe('useGenerate().stop() in Chromium', () => {
  let browser: Browser;
  let app: App;
  let pageJs: string;

  beforeAll(async () => {
    const bundle = await build({
      stdin: { contents: PAGE_SOURCE, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
      bundle: true,
      format: 'iife',
      write: false,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    pageJs = bundle.outputFiles[0]!.text;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  // One app per case: the gate's slots held by one case are not the next one's.
  beforeEach(async () => {
    app = await startApp({ page: pageJs, ledger: true });
  });
  afterEach(async () => {
    await app?.close();
  });

  const open = async (prompt: string): Promise<Page> => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${app.origin}/?prompt=${encodeURIComponent(prompt)}`);
    return page;
  };
  const state = async (page: Page) => JSON.parse((await page.locator('#state').textContent()) ?? 'null');

  it('stopped while it waits in the gate: never sent, the handler says charged false, the page says nothing was charged', async () => {
    // Every concurrency slot of the app's gate held by a render, so the page's submit waits unsent.
    const limit = (await app.client.models.list()).rate_limit?.max_concurrent ?? 0;
    expect(limit).toBeGreaterThan(0);
    await Promise.all(
      Array.from({ length: limit }, (_, i) => app.client.generations.create({ model: 'image-fast', prompt: `[[hold]] slot ${i}` })),
    );
    const billed = await app.reserves();
    const page = await open('a heron, stopped');
    await page.locator('#go').click();
    await expect.poll(() => app.queued(), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await state(page)).toMatchObject({ waiting: true, id: null });
    await page.locator('#stop').click();
    await expect.poll(async () => (await state(page)).stopped, { timeout: 20_000 }).toEqual({ outcome: 'stopped', charged: false });
    expect(await page.locator('#words').textContent()).toBe('Stopped before it was sent: nothing charged');
    expect(await state(page)).toMatchObject({ waiting: false, id: null, error: null });
    await app.emulator.faults.release();
    expect(await app.reserves()).toBe(billed);
    await page.screenshot({ path: '/tmp/react-stop-unsent.png' });
  });

  it('stopped after its 202: the handler says it goes on and is billed, and the page never says nothing was charged', async () => {
    const billed = await app.reserves();
    const page = await open('[[hold]] an owl, followed then left');
    await page.locator('#go').click();
    await expect.poll(async () => (await state(page)).id, { timeout: 20_000 }).not.toBeNull();
    await page.locator('#stop').click();
    await expect.poll(async () => (await state(page)).stopped, { timeout: 20_000 }).toEqual({ outcome: 'abandoned', charged: true });
    expect(await page.locator('#words').textContent()).toBe('Stopped following: it goes on and is billed');
    expect(await app.reserves()).toBe(billed + 1);
    await app.emulator.faults.release();
  });
});
