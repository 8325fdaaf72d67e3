import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMediaStore } from '@mediagen/core/node';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, startApp } from './support/app';
import { launchChromium } from './support/chromium';

/**
 * `useGenerate` with a `File` from a file picker, in Chromium with real React, from the BUILT
 * package: uploaded to the app's `POST /api/uploads` (a real handler with a `FileMediaStore`),
 * estimated and submitted with its token, and the real emulator fetching it from the app's own
 * signed link (loopback inputs on) to run `image-upscale`.
 */
const PAGE_SOURCE = `
import { createElement as h, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useGenerate, useGeneration } from '${fileURLToPath(new URL('../dist/index.js', import.meta.url))}';
window.progress = [];
function App() {
  const [file, setFile] = useState(null);
  const params = file ? { model: 'image-upscale', input_image: file } : { model: 'image-upscale' };
  const gen = useGenerate({ params, estimate: file !== null });
  const live = useGeneration(gen.generation?.generation_id);
  useEffect(() => { if (gen.uploadProgress) window.progress.push(gen.uploadProgress); }, [gen.uploadProgress]);
  const state = {
    uploading: gen.isUploading, credits: gen.estimate?.credits_estimate ?? null, estimateError: gen.estimateError ?? null,
    submitError: gen.error ?? null, id: gen.generation?.generation_id ?? null, status: live.status ?? null, outputs: live.outputs,
  };
  return h('main', null,
    h('input', { id: 'file', type: 'file', onChange: (e) => setFile(e.target.files[0] ?? null) }),
    h('button', { id: 'go', onClick: () => gen.submit() }, 'Upscale'),
    h('pre', { id: 'state' }, JSON.stringify(state)));
}
createRoot(document.getElementById('root')).render(h(App));
`;

/** A valid 1x1 PNG (red). */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082',
  'hex',
);

describe('@mediagen/react: files in useGenerate, in Chromium', () => {
  let browser: Browser;
  let app: App;
  let directory: string;

  beforeAll(async () => {
    const bundle = await build({
      stdin: { contents: PAGE_SOURCE, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
      bundle: true,
      format: 'iife',
      write: false,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    directory = await mkdtemp(join(tmpdir(), 'mediagen-react-uploads-'));
    app = await startApp({
      page: bundle.outputFiles[0]!.text,
      timeScale: 0.001,
      deliverWebhooks: true,
      allowLoopbackInputs: true,
      options: (origin) => ({
        uploads: { store: new FileMediaStore({ directory, url: `${origin}/api/uploads` }), secret: 'react-uploads-secret-0123456789' },
      }),
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const open = async (): Promise<Page> => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${app.origin}/`);
    return page;
  };
  const state = async (page: Page) => JSON.parse((await page.locator('#state').textContent()) ?? 'null');
  const posts = (path: string) => app.seen.filter((r) => r.method === 'POST' && r.path === path);
  const reserves = async () => {
    const account = (await (await fetch(`${app.emulator.url}/__emulator/accounts/acct_react`)).json()) as {
      ledger: { type: string; generation_id: string }[];
    };
    return account.ledger.filter((entry) => entry.type === 'reserve').map((entry) => entry.generation_id);
  };

  it('a chosen file is uploaded once (with progress), estimated and submitted by its token; a retry after a lost answer reuses it and bills once', async () => {
    const page = await open();
    const uploadsBefore = posts('/api/uploads').length;
    const billedBefore = await reserves();
    await page.locator('#file').setInputFiles({ name: 'red.png', mimeType: 'image/png', buffer: PNG });
    // The estimate needs the input: the file goes up once, and the price comes back for it.
    await expect.poll(async () => (await state(page)).credits).toBe(6);
    expect(posts('/api/uploads').length - uploadsBefore).toBe(1);
    const progress = (await page.evaluate(() => (window as any).progress)) as { loaded: number; total: number }[];
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.total === PNG.length && p.loaded <= p.total)).toBe(true);
    expect((await state(page)).uploading).toBe(false);

    // The first submit is made and billed, its answer cut off: a retryable error, no generation shown.
    app.cutSubmitAnswers(1);
    await page.locator('#go').click();
    await expect.poll(async () => (await state(page)).submitError?.code).toBe('NETWORK_ERROR');
    await page.locator('#go').click();
    await expect.poll(async () => (await state(page)).id).not.toBeNull();
    const { id } = await state(page);
    // Same key, same token (no second upload): the same generation, billed once.
    const submits = posts('/api/generations').slice(-2);
    expect(submits[0]!.idempotencyKey).toBe(submits[1]!.idempotencyKey);
    expect(posts('/api/uploads').length - uploadsBefore).toBe(1);
    expect((await reserves()).filter((r) => !billedBefore.includes(r))).toEqual([id]);
    // The emulator fetched the file from the app's signed link and upscaled it.
    await expect.poll(async () => (await state(page)).status, { timeout: 60_000 }).toBe('completed');
    const done = await app.client.generations.get(id);
    expect(done).toMatchObject({ status: 'completed', model: 'image-upscale' });
    expect(app.seen.some((r) => r.method === 'GET' && r.path.startsWith('/api/uploads/') && r.status === 200)).toBe(true);
    await page.context().close();
  }, 90_000);

  it('bytes that are no image the service takes are refused at upload, whatever their type says: a typed error, nothing submitted', async () => {
    const page = await open();
    const submitsBefore = posts('/api/generations').length;
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    await page.locator('#file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: svg });
    await expect.poll(async () => (await state(page)).estimateError?.code).toBe('MEDIA_NOT_ACCEPTED');
    expect((await state(page)).estimateError).toMatchObject({ status: 415, retryable: false });
    await page.locator('#go').click();
    await expect.poll(async () => (await state(page)).submitError?.code).toBe('MEDIA_NOT_ACCEPTED');
    expect(posts('/api/generations').length).toBe(submitsBefore);
    await page.context().close();
  }, 60_000);

  it('a file with no type goes as application/octet-stream and is read from its bytes', async () => {
    const page = await open();
    await page.locator('#file').setInputFiles({ name: 'photo', mimeType: '', buffer: PNG });
    await expect.poll(async () => (await state(page)).credits).toBe(6);
    await page.context().close();
  }, 60_000);
});
