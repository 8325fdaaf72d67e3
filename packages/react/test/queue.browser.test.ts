import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, startApp } from './support/app';
import { launchChromium } from './support/chromium';

/**
 * `useGenerate().queue` in Chromium with real React, from the BUILT package: a submit that waits
 * for a slot in the app's gate (every slot held by a `[[hold]]` render) shows its place in line
 * and what holds it, moves up as slots free, and ends with its generation. Two browsers (two
 * users) wait in one line. The test lets renders end one at a time, so nothing races a clock.
 */
const PAGE_SOURCE = `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { useGenerate } from '${fileURLToPath(new URL('../dist/index.js', import.meta.url))}';
function App() {
  const gen = useGenerate({ params: { model: 'image-fast', prompt: new URLSearchParams(location.search).get('prompt') ?? 'a heron' } });
  const state = { waiting: gen.isWaiting, queue: gen.queue ?? null, id: gen.generation?.generation_id ?? null, error: gen.error ?? null };
  return h('main', { style: { font: '14px system-ui', padding: '16px' } },
    h('button', { id: 'go', onClick: () => gen.submit() }, 'Generate'),
    h('p', { id: 'words' }, gen.queue ? 'Number ' + gen.queue.position + ' in line (' + gen.queue.limit + ')' : ''),
    h('pre', { id: 'state' }, JSON.stringify(state)));
}
createRoot(document.getElementById('root')).render(h(App));
`;

describe('useGenerate().queue in Chromium', () => {
  let browser: Browser;
  let app: App;

  beforeAll(async () => {
    const bundle = await build({
      stdin: { contents: PAGE_SOURCE, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
      bundle: true,
      format: 'iife',
      write: false,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    browser = await launchChromium();
    // Renders end soon once let go (timeScale 0.001); `[[hold]]` ones only when the test says.
    app = await startApp({ page: bundle.outputFiles[0]!.text, ledger: true, timeScale: 0.001 });
  });
  afterAll(async () => {
    await app?.emulator.faults.release();
    await app?.close();
    await browser?.close();
  });

  const open = async (prompt: string): Promise<Page> => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${app.origin}/?prompt=${encodeURIComponent(prompt)}`);
    return page;
  };
  const state = async (page: Page) => JSON.parse((await page.locator('#state').textContent()) ?? 'null');

  it('two browsers wait in one line, each told its place; each moves up and gets its generation as slots free', async () => {
    const limit = (await app.client.models.list()).rate_limit?.max_concurrent ?? 0;
    expect(limit).toBeGreaterThan(0);
    const fillers: string[] = [];
    for (let i = 0; i < limit; i++) {
      fillers.push((await app.client.generations.create({ model: 'image-fast', prompt: `[[hold]] slot ${i}` })).generation_id);
    }
    /** The oldest held render ends; the read that sees it end frees its slot in the gate. */
    const freeOne = async () => {
      const id = fillers.shift()!;
      expect(await app.emulator.faults.release(1)).toBe(1);
      await expect.poll(async () => (await app.client.generations.get(id)).status, { timeout: 20_000 }).toBe('completed');
    };
    const ada = await open('a heron, first in line');
    await ada.locator('#go').click();
    await expect.poll(async () => (await state(ada)).queue, { timeout: 20_000 }).toEqual({ position: 1, limit: 'max_concurrent' });
    const bob = await open('an owl, second in line');
    await bob.locator('#go').click();
    await expect.poll(async () => (await state(bob)).queue, { timeout: 20_000 }).toEqual({ position: 2, limit: 'max_concurrent' });
    expect(await bob.locator('#words').textContent()).toBe('Number 2 in line (max_concurrent)');
    expect(await state(ada)).toMatchObject({ waiting: true, id: null });
    await ada.screenshot({ path: '/tmp/react-queue-waiting.png' });

    await freeOne();
    await expect.poll(async () => (await state(ada)).id, { timeout: 20_000 }).toEqual(expect.any(String));
    expect(await state(ada)).toMatchObject({ waiting: false, queue: null, error: null });
    await expect.poll(async () => (await state(bob)).queue?.position, { timeout: 20_000 }).toBe(1);
    await freeOne();
    await expect.poll(async () => (await state(bob)).id, { timeout: 20_000 }).toEqual(expect.any(String));
    expect(await state(bob)).toMatchObject({ waiting: false, queue: null, error: null });
    // Each submit billed once.
    expect(await app.reserves()).toBe(limit + 2);
  });
});
