import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, FLAGS, requireChromium } from './support/chromium';
import { ACCOUNT, type Stack, startStack } from './support/stack';

/** Screenshots land here (gitignored); look at them. */
const OUTPUT = fileURLToPath(new URL('../test-output/', import.meta.url));

describe("the studio shows each user's own budget (MEDIAGEN_USER_CREDITS), and refuses past it", () => {
  let stack: Stack;
  const contexts: BrowserContext[] = [];
  const profiles: string[] = [];

  beforeAll(async () => {
    requireChromium();
    mkdirSync(OUTPUT, { recursive: true });
    // 16 credits a day per user: four image-fast drafts at 4 credits.
    stack = await startStack({ env: { MEDIAGEN_USER_CREDITS: '16' } });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await stack?.close();
    for (const profile of profiles) rmSync(profile, { recursive: true, force: true });
  });

  /** A page in a browser of its own: its own cookie, so its own user. */
  async function browserPage(): Promise<Page> {
    const profile = mkdtempSync(join(tmpdir(), 'next-sample-budget-'));
    profiles.push(profile);
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${stack.origin}/`);
    return page;
  }

  async function submit(page: Page, prompt: string) {
    await page.fill('#param-prompt', prompt);
    await page.locator('#price[data-exact="true"]').waitFor();
    await page.click('#submit');
    await expect.poll(() => page.locator('#submit').isDisabled()).toBe(false);
  }

  it('counts down from the exact prices, refuses the submit that would pass it (nothing sent), and is per user', async () => {
    const page = await browserPage();
    const budget = page.locator('#budget');
    await expect.poll(() => budget.textContent()).toMatch(/^your budget 16 of 16 left · resets /);
    for (const prompt of ['a red fox in snow', 'a lighthouse at dusk', 'a paper crane', 'a tea cup']) await submit(page, prompt);
    await expect.poll(() => page.locator('#list li[data-status="completed"]').count(), { timeout: 30_000 }).toBe(4);
    await expect.poll(() => budget.textContent()).toMatch(/^your budget 0 of 16 left/);
    expect(await budget.getAttribute('data-low')).toBe('true');

    await submit(page, 'one too many');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/^You have used all of your credits for today\. They come back /);
    expect(await page.locator('#list li').count()).toBe(4);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(OUTPUT, 'studio-budget-spent.png') });

    // The service billed exactly the budget: four generations, 16 credits, the refused one never sent.
    const account = (await stack.emulator.accounts.get(ACCOUNT)) as unknown as {
      ledger: { amount: number; generation_id: string | null }[];
    };
    const charged = account.ledger.filter((row) => row.generation_id).reduce((sum, row) => sum - row.amount, 0);
    expect(charged).toBe(16);
    expect(new Set(account.ledger.flatMap((row) => (row.generation_id ? [row.generation_id] : []))).size).toBe(4);

    // Another browser is another user, with a budget of their own.
    const other = await browserPage();
    await expect.poll(() => other.locator('#budget').textContent()).toMatch(/^your budget 16 of 16 left/);
  });
});
