import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

describe('the sample page in a real Chromium', () => {
  let stack: Stack;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    // Never skipped: without the browser this test fails, in CI too (scripts/services.sh installs it).
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash scripts/services.sh\` (it apt-installs chromium).`);
    stack = await startStack({ timeScale: 0.1 });
    profile = mkdtempSync(join(tmpdir(), 'express-sample-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  });

  afterAll(async () => {
    await context?.close();
    await stack?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('type a prompt, submit, watch the status change, see the image', async () => {
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('requestfailed', (request) => failures.push(request.url()));
    page.on('pageerror', (error) => failures.push(String(error)));

    await page.goto(stack.origin + '/');
    await expect.poll(() => page.locator('#model option').count()).toBeGreaterThan(1);
    await page.selectOption('#model', 'image-fast');
    await page.fill('#prompt', 'a lighthouse at dusk, oil painting');
    await page.click('#submit');

    const item = page.locator('#list li').first();
    await item.waitFor();
    expect(await item.getAttribute('data-status')).toMatch(/^(pending|processing)$/);
    expect(await item.locator('.prompt').textContent()).toBe('a lighthouse at dusk, oil painting');

    await page.locator('#list li[data-status="completed"] img').waitFor({ timeout: 15_000 });
    const image = page.locator('#list li[data-status="completed"] img');
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    expect(await page.locator('#list li').count()).toBe(1);
    expect(await page.locator('#error').textContent()).toBe('');
    expect(failures).toEqual([]);
    if (process.env.SAMPLE_SCREENSHOT) await page.screenshot({ path: process.env.SAMPLE_SCREENSHOT, fullPage: true });
  });

  it('an audio result is playable', async () => {
    const page = await context.newPage();
    await page.goto(stack.origin + '/');
    await expect.poll(() => page.locator('#model option[value="audio-voice"]').count()).toBe(1);
    await page.selectOption('#model', 'audio-voice');
    await page.fill('#prompt', 'a calm voice reading a poem');
    await page.click('#submit');
    const audio = page.locator('#list li[data-status="completed"] audio').first();
    await audio.waitFor({ timeout: 20_000 });
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.readyState >= 1 && el.duration)).toBeGreaterThan(0);
  });

  it('shows the service error when a submit is refused', async () => {
    const page = await context.newPage();
    await page.goto(stack.origin + '/');
    await page.fill('#prompt', 'something [[blocked]]');
    await page.click('#submit');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/CONTENT_POLICY_VIOLATION/);
  });
});
