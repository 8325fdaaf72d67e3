import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, startApp } from './support/app';
import { launchChromium } from './support/chromium';

/**
 * The hooks in Chromium with real React, from the BUILT package, on a page of an app that
 * mounts createMediaGenHandler in front of the real emulator, which completes generations by
 * itself and delivers its own signed webhooks to the app. The user is the app's cookie.
 */
const PAGE_SOURCE = `
import { createElement as h, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useGenerate, useGeneration } from '${fileURLToPath(new URL('../dist/index.js', import.meta.url))}';
window.finished = [];
function App() {
  const [prompt, setPrompt] = useState('a lighthouse at dusk');
  const [followed, setFollowed] = useState(null);
  const gen = useGenerate({ params: { model: 'image-fast', prompt }, estimate: true });
  const id = followed ?? gen.generation?.generation_id;
  const live = useGeneration(id, { onFinish: (g) => window.finished.push(g.status) });
  window.follow = setFollowed;
  window.setPrompt = setPrompt;
  const state = { id: id ?? null, status: live.status ?? null, transport: live.transport ?? null, error: live.error ?? null, outputs: live.outputs, submitting: gen.isSubmitting, submitError: gen.error ?? null, credits: gen.estimate?.credits_estimate ?? null };
  return h('main', { style: { font: '14px system-ui', padding: '16px' } },
    h('input', { id: 'prompt', value: prompt, onChange: (e) => setPrompt(e.target.value), style: { width: '300px' } }),
    h('button', { id: 'go', onClick: () => gen.submit() }, gen.isSubmitting ? 'Submitting…' : 'Generate'),
    h('p', { id: 'estimate' }, gen.estimate ? 'Estimate: ' + gen.estimate.credits_estimate + ' credits' : gen.isEstimating ? 'Estimating…' : ''),
    h('p', { id: 'live' }, id ? id + ': ' + (live.status ?? '…') + ' via ' + (live.transport ?? '-') : 'nothing yet'),
    live.outputs[0] ? h('img', { src: live.outputs[0], width: 256, height: 256 }) : null,
    h('pre', { id: 'state' }, JSON.stringify(state)));
}
createRoot(document.getElementById('root')).render(h(App));
`;

const TERMINAL = ['completed', 'failed'];

describe('@mediagen/react in Chromium', () => {
  let browser: Browser;
  let app: App;
  let js: string;

  beforeAll(async () => {
    const bundle = await build({
      stdin: { contents: PAGE_SOURCE, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
      bundle: true,
      format: 'iife',
      write: false,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    js = bundle.outputFiles[0]!.text;
    // 1.5 times the service's real lengths: an image takes 8 s at least, time for a person to watch it.
    app = await startApp({ page: js, timeScale: 0.01, deliverWebhooks: true });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = async (): Promise<Page> => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.origin}/`);
    return page;
  };
  const state = async (page: Page) => JSON.parse((await page.locator('#state').textContent()) ?? 'null');

  it('a generation appears live: submitted with one key, followed by the stream to completion, never polled', async () => {
    const page = await open();
    // `[[hold]]`: in flight until released, so the page is seen following it by the stream.
    await page.evaluate(() => (window as any).setPrompt('a lighthouse, live [[hold]]'));
    await expect.poll(async () => (await state(page)).credits, { timeout: 20_000 }).not.toBeNull();
    // A double click is one submission: one key, one generation.
    await page.locator('#go').dblclick();
    await expect.poll(async () => (await state(page)).id, { timeout: 20_000 }).not.toBeNull();
    const { id } = await state(page);
    expect((await app.emulator.faults.held({ min: 1 })).map((h) => h.generation_id)).toEqual([id]);
    await expect.poll(async () => (await state(page)).transport, { timeout: 20_000 }).toBe('stream');
    await app.emulator.faults.release();
    await expect.poll(async () => (await state(page)).status, { timeout: 60_000 }).toBe('completed');
    const done = await state(page);
    expect(done.outputs).toHaveLength(1);
    expect(await page.evaluate(() => (window as any).finished)).toEqual(['completed']);
    expect(app.statusReads(id)).toBe(0);
    // The second click came while the first was in flight: the same submission, not a second request.
    const submits = app.seen.filter((r) => r.method === 'POST' && r.path === '/api/generations');
    expect(submits).toHaveLength(1);
    expect(submits[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect((await app.client.generations.get(id)).status).toBe('completed');
    await page.locator('img').waitFor();
    await page.screenshot({
      path: process.env.HOOKS_SCREENSHOT ?? fileURLToPath(new URL('../node_modules/.cache/react-hooks.png', import.meta.url)),
    });
    await page.context().close();
  }, 90_000);

  it('the stream cut mid-way recovers: the terminal state reached while cut is not lost', async () => {
    const page = await open();
    // `[[hold]]`: the emulator keeps it in flight until released, so the cut lands mid-way by construction.
    await page.evaluate(() => (window as any).setPrompt('a cut stream [[hold]]'));
    await page.locator('#go').click();
    await expect.poll(async () => (await state(page)).transport, { timeout: 20_000 }).toBe('stream');
    const before = await state(page);
    expect((await app.emulator.faults.held({ min: 1 })).map((h) => h.generation_id)).toEqual([before.id]);
    expect(TERMINAL).not.toContain(before.status);
    // Cut every open stream, and keep the reconnect waiting until the service has finished.
    const hold = app.holdStreams();
    expect(app.cutStreams()).toBeGreaterThan(0);
    await expect.poll(() => hold.waiting(), { timeout: 20_000 }).toBeGreaterThan(0);
    await app.emulator.faults.release();
    await app.client.generations.wait(before.id, { timeoutMs: 60_000 });
    hold.release();
    await expect.poll(async () => (await state(page)).status, { timeout: 20_000 }).toBe('completed');
    expect(await page.evaluate(() => (window as any).finished)).toEqual(['completed']);
    const reconnects = app.streamRequests(before.id).slice(1);
    expect(reconnects.length).toBeGreaterThan(0);
    expect(reconnects[0]!.lastEventId).toMatch(/^[12]$/);
    expect(app.statusReads(before.id)).toBe(0);
    await page.context().close();
  }, 120_000);

  it('a submit whose answer is cut off keeps its key: the click again answers the same generation, billed once', async () => {
    const reserves = async () => {
      const account = (await (await fetch(`${app.emulator.url}/__emulator/accounts/acct_react`)).json()) as {
        ledger: { type: string; generation_id: string }[];
      };
      return account.ledger.filter((entry) => entry.type === 'reserve').map((entry) => entry.generation_id);
    };
    const page = await open();
    await page.evaluate(() => (window as any).setPrompt('an answer cut off'));
    const before = await reserves();
    app.cutSubmitAnswers(1);
    await page.locator('#go').click();
    // Billed, but the page never read the 202: an error it may retry, with no generation shown.
    await expect.poll(async () => (await state(page)).submitError?.code, { timeout: 20_000 }).toBe('NETWORK_ERROR');
    expect(await state(page)).toMatchObject({ id: null, submitError: { retryable: true, status: 0 } });
    await page.locator('#go').click();
    await expect.poll(async () => (await state(page)).id, { timeout: 20_000 }).not.toBeNull();
    const { id } = await state(page);
    const posts = app.seen.filter((r) => r.method === 'POST' && r.path === '/api/generations').slice(-2);
    expect(posts[0]!.idempotencyKey).toBe(posts[1]!.idempotencyKey);
    expect((await reserves()).filter((reserved) => !before.includes(reserved))).toEqual([id]);
    await page.context().close();
  }, 60_000);

  it("a second user cannot stream the first user's generation: 404 as the hook's error, no state", async () => {
    const first = await open();
    await first.evaluate(() => (window as any).setPrompt('mine only'));
    await first.locator('#go').click();
    await expect.poll(async () => (await state(first)).id, { timeout: 20_000 }).not.toBeNull();
    // Other params are another submission: a new key.
    const keys = app.seen.filter((r) => r.method === 'POST' && r.path === '/api/generations').map((r) => r.idempotencyKey);
    expect(keys.slice(0, -1)).not.toContain(keys.at(-1));
    await expect.poll(async () => (await state(first)).id, { timeout: 20_000 }).not.toBeNull();
    const { id } = await state(first);
    const second = await open();
    await second.evaluate((x) => (window as any).follow(x), id);
    await expect.poll(async () => (await state(second)).error?.code, { timeout: 20_000 }).toBe('NOT_FOUND');
    const seen = await state(second);
    expect(seen).toMatchObject({ status: null, error: { status: 404 }, transport: null });
    expect(app.streamRequests(id).some((r) => r.status === 404)).toBe(true);
    await first.context().close();
    await second.context().close();
  }, 60_000);
});
