// Row: completion to pixel, what a person at the studio feels. In Chromium, on the built studio
// (`next start` of apps/next-sample) against a real emulator whose webhooks go to the studio:
// from the emulator marking a generation completed (its `completed_at`, on the emulator's
// clock, which this run never moves) to the card's image `decode()` resolving on the page.
// Two pages in the same run, rounds interleaved: the cards following the event stream (the
// default), and the cards polling alone (`/?stream=off`, the hook's `stream: false`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '@mediagen/emulator';
import { chromium } from 'playwright-core';

const APP = fileURLToPath(new URL('../../apps/next-sample/', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const KEY = 'svc_live_bench_pixel';
const SECRET = 'whsec_bench_pixel';
const TARGET_P50_MS = 100;

// On the page: when a card first shows `completed` and when its image has decoded (same wall
// clock as the emulator's), so the figure splits into news reaching the page and the image.
const OBSERVER = `
window.__decoded = {};
window.__shown = {};
window.__broken = {};
const seen = new WeakSet();
new MutationObserver(() => {
  for (const li of document.querySelectorAll('#list li[data-status="completed"]')) window.__shown[li.dataset.id] ??= Date.now();
  for (const img of document.querySelectorAll('#list li[data-status="completed"] img')) {
    if (seen.has(img)) continue;
    seen.add(img);
    const id = img.closest('li').dataset.id;
    // decode() rejects while a lazy image has not started loading: then wait for its load (which
    // may have happened by the time the rejection is seen: complete then, decode again).
    const mark = () => {
      window.__decoded[id] ??= Date.now();
      performance.mark('mediagen:decoded:' + id);
    };
    const attempt = () =>
      img.decode().then(mark, () => {
        if (!img.complete) img.addEventListener('load', attempt, { once: true });
        else if (img.naturalWidth > 0) img.decode().then(mark, mark);
        else window.__broken[id] = true;
      });
    attempt();
  }
}).observe(document, { subtree: true, childList: true, attributes: true });
`;

function percentile(sorted, p) {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function startStudio(env, port) {
  const child = spawn(
    process.execPath,
    [join(APP, 'node_modules/next/dist/bin/next'), 'start', '--port', String(port), '--hostname', '127.0.0.1'],
    {
      cwd: APP,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${origin}/api/generations`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('next start did not answer within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { origin, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))) };
}

/** Submits through the page's form; resolves with the ms from the emulator's completion to the card showing it and to its image decoded. */
async function oneGeneration(page, emulator, prompt) {
  // The person is looking at this page: in front (a hidden page's timers and frames are throttled).
  await page.bringToFront();
  if ((await page.evaluate(() => document.visibilityState)) !== 'visible') throw new Error('the page is not visible');
  await page.fill('#param-prompt', prompt);
  await page.click('#submit');
  // The person watches the gallery's top, where the new card lands (its image is lazy: one
  // scrolled out of view would not load, as for a person).
  await page.evaluate(() => window.scrollTo(0, 0));
  const card = page.locator('#list li').filter({ hasText: prompt }).first();
  await card.waitFor({ timeout: 60_000 });
  const id = await card.getAttribute('data-id');
  const decodedAt = await page
    .waitForFunction((g) => window.__decoded[g], id, { timeout: 60_000, polling: 100 })
    .then((handle) => handle.jsonValue())
    .catch(async (error) => {
      const state = await card.evaluate((li) => ({
        status: li.dataset.status,
        img: li.querySelector('img')?.outerHTML ?? null,
        visibility: document.visibilityState,
      }));
      throw new Error(`${prompt}: no decoded image (${JSON.stringify(state)}): ${error.message}`);
    });
  const res = await fetch(`${emulator.url}/api/v1/generations/${id}`, { headers: { authorization: `Bearer ${KEY}` } });
  const g = await res.json();
  if (g.status !== 'completed') throw new Error(`generation ${id} is ${g.status}`);
  const shownAt = await page.evaluate((key) => window.__shown[key], id);
  return { pixel: decodedAt - Date.parse(g.completed_at), shown: shownAt - Date.parse(g.completed_at) };
}

export async function run({ quick }) {
  const n = quick ? 3 : 20;
  const what = `Completion to pixel in Chromium on the studio (emulator completed → image decoded), ${n} image generations each`;
  const missing = !existsSync(join(APP, '.next', 'BUILD_ID'))
    ? 'the studio is not built (`pnpm turbo run build --filter=next-sample`)'
    : !existsSync(CHROMIUM)
      ? `${CHROMIUM} is missing (\`node scripts/ensure-services.mjs\`)`
      : undefined;
  if (missing)
    return {
      rows: [{ id: 'completion-to-pixel', what, ours: `not measured: ${missing}`, peers: {}, status: 'not measured' }],
      raw: { missing },
    };

  const port = await freePort();
  const emulator = await startEmulator({
    port: 0,
    config: {
      timeScale: 0.05,
      accounts: [
        {
          id: 'acct_bench_pixel',
          tier: 'pro',
          balance: 1_000_000,
          keys: [{ key: KEY }],
          webhooks: [{ url: `http://127.0.0.1:${port}/api/webhooks/mediagen`, secret: SECRET, enabled: true }],
        },
      ],
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-pixel-'));
  let studio;
  let browser;
  try {
    studio = await startStudio(
      {
        MEDIAGEN_API_KEY: KEY,
        MEDIAGEN_BASE_URL: emulator.url,
        MEDIAGEN_WEBHOOK_SECRET: SECRET,
        MEDIAGEN_SAMPLE_DB: join(dir, 'generations.db'),
      },
      port,
    );
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    const open = async (path) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 1200 } });
      await context.addInitScript(OBSERVER);
      const page = await context.newPage();
      await page.goto(`${studio.origin}${path}`);
      await page.locator('#param-prompt').waitFor();
      return page;
    };
    const sides = {
      stream: { page: await open('/'), delays: [], shown: [] },
      poll: { page: await open('/?stream=off'), delays: [], shown: [] },
    };
    // One warm-up each (first compile of the routes, first image), not counted.
    for (const [name, side] of Object.entries(sides)) await oneGeneration(side.page, emulator, `warm-up ${name}`);
    for (let i = 0; i < n; i++) {
      const order = i % 2 === 0 ? ['stream', 'poll'] : ['poll', 'stream'];
      for (const name of order) {
        const { pixel, shown } = await oneGeneration(sides[name].page, emulator, `pixel ${name} ${i}`);
        sides[name].delays.push(pixel);
        sides[name].shown.push(shown);
      }
    }
    const stream = sides.stream.delays.sort((a, b) => a - b);
    const poll = sides.poll.delays.sort((a, b) => a - b);
    const streamShown = sides.stream.shown.sort((a, b) => a - b);
    const pollShown = sides.poll.shown.sort((a, b) => a - b);
    const fmt = (xs) => `p50 ${Math.round(percentile(xs, 0.5))} ms, p95 ${Math.round(percentile(xs, 0.95))} ms`;
    const p50 = percentile(stream, 0.5);
    return {
      rows: [
        {
          id: 'completion-to-pixel',
          what,
          ours: `stream: ${fmt(stream)} (card shows completed: ${fmt(streamShown)}); polling alone: ${fmt(poll)} (card: ${fmt(pollShown)})`,
          peers: {},
          target: `stream p50 < ${TARGET_P50_MS} ms`,
          status: p50 < TARGET_P50_MS ? 'pass' : 'miss',
          note: "next start of the built studio + real emulator (timeScale 0.05, webhooks to the studio) + Chromium, all on this machine; one generation at a time, stream and polling pages interleaved round by round; completion = the emulator's completed_at, pixel = the card image's decode() resolving (a MutationObserver in the page). Polling waits the contract's 2 s interval. The machine is shared with other sessions under heavy load: absolute figures are noisy.",
        },
      ],
      raw: { n, stream, poll, streamShown, pollShown },
    };
  } finally {
    await browser?.close();
    await studio?.stop();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
