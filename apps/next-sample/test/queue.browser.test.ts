import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, FLAGS, requireChromium } from './support/chromium';
import { type Stack, startStack } from './support/stack';

/** Screenshots land here (gitignored); look at them. */
const OUTPUT = fileURLToPath(new URL('../test-output/', import.meta.url));
/** The Pro account's generations at once (the studio's gate keeps to it). */
const MAX_CONCURRENT = 5;

/**
 * The studio's own submits reach its gate (issue 34): with every slot of the account held by a
 * `[[hold]]` render, a submit from the page waits in line, and the page shows its place and a
 * Stop that says what it did: stopped before it was sent (never billed), or, once the service has
 * it, that it goes on and is billed. Chromium against `next start` and a real emulator; bills are
 * counted from the emulator's account ledger. Renders end only when the test lets them.
 */
describe('the studio shows a queued submit and stops it truthfully (Chromium, next start, real emulator)', () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    requireChromium();
    mkdirSync(OUTPUT, { recursive: true });
    stack = await startStack();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  });
  afterAll(async () => {
    await stack?.emulator.faults.release();
    await browser?.close();
    await stack?.close();
  });

  const reserves = async () => (await stack.account()).ledger.filter((row) => row.type === 'reserve').length;

  async function open(): Promise<Page> {
    // Another time zone than the server's, as a visitor's may be: nothing rendered from a clock may mismatch.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Pacific/Auckland' });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(String(error)));
    await page.goto(`${stack.origin}/`);
    // The estimate is the page's own request: once it confirms the price, the page is hydrated.
    await page.fill('#param-prompt', 'waiting for hydration');
    await page.locator('#price[data-exact="true"]').waitFor({ timeout: 30_000 });
    expect(failures).toEqual([]);
    return page;
  }

  it('a submit past the account’s limit shows its place in line; Stop says it was never sent, and nothing is billed', async () => {
    // Every slot held, through the studio's own handler (its gate counts them).
    for (let i = 0; i < MAX_CONCURRENT; i++) {
      const held = await stack.json('/api/generations', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-fast', prompt: `[[hold]] a slot taker ${i}` }),
      });
      expect(held.status).toBe(202);
    }
    expect(await stack.emulator.faults.held({ min: MAX_CONCURRENT })).toHaveLength(MAX_CONCURRENT);
    const billed = await reserves();

    const page = await open();
    await page.fill('#param-prompt', 'a heron at dawn, waiting its turn');
    await page.click('#submit');
    const card = page.locator('.queue-card[data-status="queued"]');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.getAttribute('data-position')).toBe('1');
    expect(await card.locator('[data-queue]').textContent()).toMatch(/^Next in line: every generation slot of the account is busy/);
    expect(await card.textContent()).toContain('a heron at dawn, waiting its turn');
    await page.screenshot({ path: `${OUTPUT}studio-queued.png`, fullPage: true });

    await card.locator('#stop').click();
    const stopped = page.locator('.queue-card[data-status="stopped"] [data-stop-outcome="stopped"][data-charged="false"]');
    await stopped.waitFor({ timeout: 30_000 });
    expect(await stopped.textContent()).toBe('Stopped before it was sent: nothing was charged.');
    await page.screenshot({ path: `${OUTPUT}studio-stopped.png`, fullPage: true });
    // No slot freed meanwhile, and the stopped submit never reached the service.
    expect(await reserves()).toBe(billed);
    await page.close();
  });

  it('once a slot frees, a submit goes and gets its card; Stop on it says it goes on and is billed (billed once)', async () => {
    const page = await open();
    // One render ends: its webhook frees its slot in the studio's gate.
    expect(await stack.emulator.faults.release(1)).toBe(1);
    const billed = await reserves();
    await page.fill('#param-prompt', '[[hold]] an owl, followed then left');
    await page.click('#submit');
    const card = page.locator('#list li').filter({ hasText: 'an owl, followed then left' }).first();
    await card.waitFor({ timeout: 30_000 });
    await card.locator('[data-stop]').click();
    const outcome = card.locator('[data-stop-outcome="abandoned"][data-charged="true"]');
    await outcome.waitFor({ timeout: 30_000 });
    expect(await outcome.textContent()).toMatch(/^The service already had it: it goes on and is billed\./);
    await page.screenshot({ path: `${OUTPUT}studio-stopped-following.png`, fullPage: true });
    expect(await reserves()).toBe(billed + 1);
    await page.close();
  });
});
