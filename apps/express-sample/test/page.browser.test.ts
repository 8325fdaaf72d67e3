import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model } from '@mediagen/core';
import { effectiveLimits, PROMPT_MAX } from '@mediagen/core/wire';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Stack, startStack } from './support/stack.js';

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
    // Never skipped: without the browser this test fails, in CI too (the repo's `pnpm test` installs it).
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install it with "apt-get install -y chromium" (in the monorepo, pnpm test does it).`);
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
    // The first contact named this browser's user: an HttpOnly, SameSite=Lax cookie the page's scripts cannot read.
    const [cookie] = await context.cookies(stack.origin);
    expect(cookie).toMatchObject({ name: 'mediagen_user', httpOnly: true, sameSite: 'Lax', secure: false });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await expect.poll(() => page.locator('#model option').count()).toBeGreaterThan(1);
    await page.selectOption('#model', 'image-fast');
    // `[[hold]]`: the emulator keeps it in flight until released, so the page is seen before the end.
    await page.fill('#prompt', 'a lighthouse at dusk, oil painting [[hold]]');
    await page.click('#submit');

    const item = page.locator('#list li').first();
    await item.waitFor();
    const [held] = await stack.emulator.faults.held({ min: 1 });
    expect(await item.getAttribute('data-id')).toBe(held?.generation_id);
    expect(await item.getAttribute('data-status')).toMatch(/^(pending|processing)$/);
    expect(await item.locator('.prompt').textContent()).toBe('a lighthouse at dusk, oil painting [[hold]]');
    expect(await stack.emulator.faults.release()).toBe(1);

    await page.locator('#list li[data-status="completed"] img').waitFor({ timeout: 15_000 });
    const image = page.locator('#list li[data-status="completed"] img');
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    expect(await page.locator('#list li').count()).toBe(1);
    expect(await page.locator('#error').textContent()).toBe('');
    expect(failures).toEqual([]);
    if (process.env.SAMPLE_SCREENSHOT) await page.screenshot({ path: process.env.SAMPLE_SCREENSHOT, fullPage: true });
  });

  it('a submit the service has not answered yet is listed as submitting, with its note and no charge, until it is', async () => {
    const page = await context.newPage();
    await page.goto(stack.origin + '/');
    await expect.poll(() => page.locator('#model option[value="image-fast"]').count()).toBe(1);
    // The service holds the submit: the app has written the intent, no answer has come back.
    await stack.emulator.faults.add({ endpoint: 'generate', when: 'after', hold: true });
    await page.selectOption('#model', 'image-fast');
    await page.fill('#prompt', 'a red kite over a green hill');
    await page.click('#submit');
    await stack.emulator.faults.held({ min: 1 });
    const item = page.locator('#list li[data-status="submitting"]', { hasText: 'a red kite over a green hill' });
    await item.waitFor({ timeout: 10_000 });
    expect(await item.getAttribute('data-id')).toBeTruthy();
    expect(await item.locator('.status').textContent()).toBe('submitting');
    expect(await item.locator('[data-submitting]').textContent()).toMatch(/never billed twice/);
    expect(await item.locator('.head .muted').textContent()).not.toMatch(/credits/);
    expect(await stack.emulator.faults.release()).toBe(1);
    await page
      .locator('#list li[data-status="completed"]', { hasText: 'a red kite over a green hill' })
      .locator('img')
      .waitFor({ timeout: 15_000 });
    expect(await page.locator('#list li[data-status="submitting"]').count()).toBe(0);
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

  it("a prompt over the model's limit is sent whole and refused with that limit (its effectiveLimits), never cut short by the page", async () => {
    const page = await context.newPage();
    await page.goto(stack.origin + '/');
    await expect.poll(() => page.locator('#model option[value="audio-voice"]').count()).toBe(1);
    const { models } = (await (await page.request.get(`${stack.origin}/api/models`)).json()) as { models: Model[] };
    const { promptMax } = effectiveLimits(models.find((m) => m.slug === 'audio-voice'));
    expect(promptMax).toBeLessThan(PROMPT_MAX);
    await page.selectOption('#model', 'audio-voice');
    // Emoji: one character each (code points), two UTF-16 units.
    const prompt = '🌊'.repeat(promptMax + 1);
    await page.fill('#prompt', prompt);
    expect(await page.inputValue('#prompt')).toBe(prompt);
    await page.click('#submit');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(new RegExp(`prompt\\b.*\\b${promptMax}\\b`));
  });

  it('shows the service error when a submit is refused', async () => {
    const page = await context.newPage();
    await page.goto(stack.origin + '/');
    await page.fill('#prompt', 'something [[blocked]]');
    await page.click('#submit');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/CONTENT_POLICY_VIOLATION/);
  });

  it('a submit whose answer was lost, sent again, bills once (one Idempotency-Key per intent)', async () => {
    const page = await context.newPage();
    await page.goto(stack.origin + '/');
    await expect.poll(() => page.locator('#model option[value="image-fast"]').count()).toBe(1);
    // Counted as the page's user: the browser sends its cookie.
    const count = () => page.evaluate(async () => (await (await fetch('/api/generations')).json()).generations.length as number);
    const before = await count();
    const keys: string[] = [];
    let lose = true;
    // The first answer is lost on the way back (the server did accept it); the retry goes through.
    await page.route('**/api/generations', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      if (!lose) return route.continue();
      lose = false;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.selectOption('#model', 'image-fast');
    await page.fill('#prompt', 'one intent, two clicks');
    await page.click('#submit');
    await expect.poll(() => page.locator('#error').textContent()).not.toBe('');
    await page.click('#submit');
    await expect.poll(() => page.locator('#error').textContent()).toBe('');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await count()).toBe(before + 1);
  });

  it('after the service forgot a generation (a new service, no kept outputs), the page says it is unavailable, never a broken image', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'express-sample-forgot-'));
    const first = await startStack({ dataDir });
    let second: Stack | undefined;
    try {
      const { body } = await first.submit({ model: 'image-fast', prompt: 'forgotten' });
      await eventually(async () => (await first.list()).find((g) => g.generation_id === body.generation_id && g.status === 'completed'));
      const [name, value] = first.cookie.split('=') as [string, string];
      await first.close();
      second = await startStack({ dataDir });
      await context.addCookies([{ name, value, url: second.origin }]);
      const page = await context.newPage();
      await page.goto(second.origin + '/');
      const item = page.locator(`#list li[data-id="${body.generation_id}"]`);
      await item.locator('[data-gone]').waitFor({ timeout: 15_000 });
      expect(await item.locator('[data-gone]').textContent()).toMatch(/no longer available/i);
      expect(await item.locator('img, video, audio').count()).toBe(0);
      expect(await item.getAttribute('data-status')).toBe('completed');
    } finally {
      await second?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
