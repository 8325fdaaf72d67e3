// A handful of real Chromium pages on the balancer: each gets its user's cookie from the studio,
// then submits with fetch and follows each generation with the browser's own EventSource (its own
// reconnects with Last-Event-ID after a cut; on a refused open it fails, and the page opens it
// again after 2 s, as the studio's hook does). What each page saw comes back for the invariants.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** In the page: submit, follow to terminal, repeat until `window.__fleetStop`; resolves with what it saw. */
async function pageLoop() {
  const seen = { accepted: [], foreign: [], errors: [], reopens: 0, cuts: 0 };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  for (let n = 0; !window.__fleetStop; n++) {
    const key = `chromium-${crypto.randomUUID()}`;
    const started = performance.now();
    let id;
    for (let attempt = 0; attempt < 60 && !id; attempt++) {
      const r = await fetch('/api/generations', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ model: 'image-fast', prompt: `chromium ${n}` }),
      }).catch(() => undefined);
      if (r?.status === 202) id = (await r.json()).generation_id;
      else await sleep(500);
    }
    if (!id) {
      seen.errors.push(`submit ${key}: no 202`);
      continue;
    }
    const entry = { key, id, submitMs: Math.round(performance.now() - started), acceptedAt: Date.now() };
    seen.accepted.push(entry);
    const until = Date.now() + 120_000;
    while (!entry.terminal && Date.now() < until) {
      await new Promise((resolve) => {
        const source = new EventSource(`/api/generations/${encodeURIComponent(id)}/events`);
        let opened = false;
        source.onopen = () => {
          if (opened) seen.cuts++; // reopened by the browser itself after a cut
          opened = true;
        };
        source.onmessage = (message) => {
          const g = JSON.parse(message.data);
          if (g.generation_id !== id) seen.foreign.push(g.generation_id);
          if (g.status === 'completed' || g.status === 'failed') {
            entry.terminal = g.status;
            entry.terminalAt = Date.now();
            source.close();
            resolve();
          }
        };
        source.onerror = () => {
          // CLOSED: refused (not 200) or ended for good; CONNECTING: the browser reconnects itself.
          if (source.readyState === EventSource.CLOSED) {
            seen.reopens++;
            resolve();
          }
        };
      });
      if (!entry.terminal) await sleep(2_000);
    }
    if (!entry.terminal) seen.errors.push(`stream ${id}: no terminal event`);
    await sleep(1_000);
  }
  return seen;
}

export async function startChromiumUsers({ base, pages }) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (pnpm test installs it: scripts/ensure-services.mjs)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const runs = [];
  for (let i = 0; i < pages; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The studio's own JSON list: the proxy gives this browser its user on the first answer.
    await page.goto(`${base}/api/generations`);
    runs.push(page.evaluate(pageLoop));
  }
  return {
    async stop() {
      for (const context of browser.contexts()) for (const page of context.pages()) await page.evaluate(() => (window.__fleetStop = true));
      const seen = await Promise.all(
        runs.map((run) => run.catch((error) => ({ accepted: [], foreign: [], errors: [String(error)], reopens: 0, cuts: 0 }))),
      );
      await browser.close();
      return seen;
    },
  };
}
