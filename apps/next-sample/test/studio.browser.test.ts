import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Model } from '@mediagen/core';
import { effectiveLimits } from '@mediagen/core/wire';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, FLAGS, requireChromium } from './support/chromium';
import { KEY, SECRET, type Stack, startStack } from './support/stack';

/** Screenshots land here (gitignored); look at them. */
const OUTPUT = fileURLToPath(new URL('../test-output/', import.meta.url));

describe('the studio in a real Chromium, against next start and a real emulator', () => {
  let stack: Stack;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    // Never skipped: without the browser this test fails, in CI too (`node scripts/ensure-services.mjs` installs it).
    requireChromium();
    mkdirSync(OUTPUT, { recursive: true });
    stack = await startStack();
    profile = mkdtempSync(join(tmpdir(), 'next-sample-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
      // Not the server's zone (UTC): a time rendered on the server and again in the browser
      // differs, and the first client render must still match the server's HTML (React #418).
      timezoneId: 'Pacific/Auckland',
    });
  });
  afterAll(async () => {
    await context?.close();
    await stack?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** What one page did, checked after the test that opened it (so each test checks its own, even run alone). */
  interface Watch {
    page: Page;
    /** Uncaught errors in the page, and requests that failed. */
    failures: string[];
    /** Requests to an origin other than the studio's own (web fonts, CDNs, the service's API). */
    foreign: string[];
    /** The bodies of the JS chunks it loaded, being read. */
    reads: Promise<void>[];
    /** JS chunks read, and those holding a secret. */
    chunks: string[];
    leaks: string[];
  }
  let watches: Watch[] = [];

  async function open(): Promise<Page> {
    const page = await context.newPage();
    const watch: Watch = { page, failures: [], foreign: [], reads: [], chunks: [], leaks: [] };
    watches.push(watch);
    page.on('pageerror', (error) => watch.failures.push(String(error)));
    // ERR_ABORTED is a request cut short by page.close() (an estimate in flight), not a failure.
    page.on(
      'requestfailed',
      (request) =>
        request.failure()?.errorText !== 'net::ERR_ABORTED' && watch.failures.push(`${request.url()} ${request.failure()?.errorText}`),
    );
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol === 'data:' || url.protocol === 'blob:' || url.origin === stack.origin) return;
      // The one exception: a result's media, shown from its signed output link on the service's
      // origin (the user's own content, not the page's assets; the key never goes with it).
      const result = url.origin === stack.emulator.url && url.pathname.startsWith('/api/v1/output/');
      if (result && ['image', 'media'].includes(request.resourceType())) return;
      watch.foreign.push(`${request.resourceType()} ${request.url()}`);
    });
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin !== stack.origin || !url.pathname.startsWith('/_next/static/') || !url.pathname.endsWith('.js')) return;
      watch.reads.push(
        response.body().then(
          (body) => {
            const text = body.toString('utf8');
            watch.chunks.push(url.pathname);
            for (const secret of [KEY, SECRET]) if (text.includes(secret)) watch.leaks.push(`${url.pathname} holds ${secret}`);
          },
          (error: unknown) => void watch.failures.push(`could not read ${url.pathname}: ${error}`),
        ),
      );
    });
    await page.goto(stack.origin + '/');
    return page;
  }

  // Every test's pages: no page error, no failed request, nothing from another origin, and the
  // API key (and webhook secret) in none of the JS the browser loaded.
  afterEach(async () => {
    const done = watches;
    watches = [];
    for (const watch of done) {
      await Promise.all(watch.reads);
      if (!watch.page.isClosed()) await watch.page.close();
    }
    for (const { failures, foreign, leaks, chunks } of done) {
      expect({ failures, foreign, leaks }).toEqual({ failures: [], foreign: [], leaks: [] });
      expect(chunks.length, 'JS chunks read').toBeGreaterThan(0);
    }
  });
  const pick = (page: Page, slug: string) => page.locator(`.model-option:has(input[value="${slug}"])`).click();
  const params = (page: Page) => page.locator('#params [data-param]').evaluateAll((els) => els.map((el) => el.getAttribute('data-param')));

  it('pick a model, the form follows its schema, the price is confirmed, submit, the image arrives by webhook', async () => {
    const page = await open();
    // The account's models, grouped by the contract's categories.
    expect(await page.locator('.picker-group').evaluateAll((els) => els.map((el) => el.getAttribute('data-category')))).toEqual(
      expect.arrayContaining(['image', 'video', 'audio', 'text', 'utility', 'threed']),
    );
    expect(
      await page
        .locator('.picker-group[data-category="video"] input')
        .evaluateAll((els) => els.map((el) => (el as HTMLInputElement).value)),
    ).toContain('video-standard');
    // A model the list says the API cannot use is shown, disabled, saying so; never selectable.
    const lipsync = page.locator('.model-option:has(input[value="lipsync-multi"])');
    expect(await lipsync.getAttribute('data-unavailable')).toBe('true');
    expect(await lipsync.locator('input').isDisabled()).toBe(true);
    expect(await lipsync.locator('.model-meta').textContent()).toBe('not available through the API');
    expect(
      await page
        .locator('.model-option[data-unavailable="true"] input')
        .evaluateAll((els) => els.map((el) => (el as HTMLInputElement).value)),
    ).toEqual(['lipsync-multi']);

    await pick(page, 'image-pro');
    await expect.poll(() => page.locator('#params').getAttribute('data-model')).toBe('image-pro');
    expect(await params(page)).toEqual([
      'prompt',
      'input_image',
      'size',
      'quality',
      'resolution',
      'reference_images',
      'number_results',
      'seed',
    ]);
    // Sizes follow the chosen quality (values_by_quality): no 4K below ultra.
    await page.selectOption('#param-quality', 'standard');
    expect(await page.locator('#param-size option').allTextContents()).not.toContain('Square 4K');
    await page.selectOption('#param-quality', 'ultra');
    expect(await page.locator('#param-size option').allTextContents()).toContain('Square 4K');
    // Reference images up to the model's max.
    const max = Number((await page.locator('[data-param="reference_images"] .hint').textContent())?.match(/\d+/)?.[0]);
    for (let i = 0; i < max; i++) await page.click('#add-reference');
    expect(await page.locator('#add-reference').count()).toBe(0);

    await pick(page, 'image-fast');
    await expect.poll(() => params(page)).toEqual(['prompt', 'input_image', 'aspect_ratio', 'number_results', 'seed', 'enhance']);
    await page.fill('#param-prompt', 'a lighthouse at dusk, oil painting');
    await page.selectOption('#param-number_results', '2');
    // The price from the model entry, then confirmed by estimate.
    await expect
      .poll(async () => `${await page.locator('#price').getAttribute('data-exact')} ${await page.locator('#price-note').textContent()}`)
      .toMatch(/^true/);
    expect(await page.locator('#price').textContent()).toMatch(/^8 credits$/);
    await page.selectOption('#param-number_results', '1');
    await expect.poll(() => page.locator('#price').textContent()).toMatch(/^4 credits$/);
    const balanceBefore = await page.locator('#balance').textContent();

    await page.click('#submit');
    const card = page.locator('#list li').first();
    await card.waitFor();
    const done = page.locator('#list li[data-status="completed"] img');
    await done.waitFor({ timeout: 20_000 });
    await expect.poll(() => done.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    const id = await card.getAttribute('data-id');
    // The studio's ledger has it completed, and the emulator delivered its webhook.
    // (Listed as this browser's user: `page.request` sends the page's cookie.)
    const mine = async () =>
      ((await (await page.request.get(`${stack.origin}/api/generations`)).json()) as { generations: any[] }).generations;
    await expect.poll(async () => (await mine()).find((g) => g.generation_id === id)?.status).toBe('completed');
    // Another browser (another user) sees none of it.
    expect((await stack.user().list()).map((g) => g.generation_id)).not.toContain(id);
    expect((await stack.deliveries(id!))[0]).toMatchObject({ status: 200, outcome: 'delivered', url: stack.webhookUrl });
    await expect.poll(() => page.locator('#balance').textContent()).not.toBe(balanceBefore);
    expect(await page.locator('#error').textContent()).toBe('');

    await page.screenshot({ path: join(OUTPUT, 'studio-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(OUTPUT, 'studio-phone.png'), fullPage: true });
  });

  it("the form's limits are the model's effective limits (core's effectiveLimits, what validateParams checks)", async () => {
    const page = await open();
    const { models } = (await (await page.request.get(`${stack.origin}/api/models`)).json()) as { models: Model[] };
    const range = ({ min, max }: { min: number; max: number }) => Array.from({ length: max - min + 1 }, (_, i) => String(min + i));
    // Each usable model with a prompt; among them the contract's 2000, lower model limits, 1 to 4 and 1 to 2 results.
    const checked = models.filter((m) => m.api_supported !== false && m.params.prompt);
    expect(new Set(checked.map((m) => effectiveLimits(m).promptMax)).size).toBeGreaterThan(2);
    for (const model of checked) {
      const limits = effectiveLimits(model);
      await pick(page, model.slug);
      await expect.poll(() => page.locator('#params').getAttribute('data-model')).toBe(model.slug);
      const shown = {
        slug: model.slug,
        promptMax: (await page.locator('[data-param="prompt"] .hint').textContent())?.split(' / ')[1],
        results:
          limits.numberResults.max > limits.numberResults.min ? await page.locator('#param-number_results option').allTextContents() : [],
        references: model.params.reference_images ? await page.locator('[data-param="reference_images"] .hint').textContent() : null,
      };
      expect(shown).toEqual({
        slug: model.slug,
        promptMax: String(limits.promptMax),
        results: limits.numberResults.max > limits.numberResults.min ? range(limits.numberResults) : [],
        references: model.params.reference_images ? `up to ${limits.referenceImages.max}` : null,
      });
    }
    // A prompt one character over (emoji: one character, two UTF-16 units) stays whole, and the schema's issue stops the submit.
    const voice = checked.find((m) => m.slug === 'audio-voice')!;
    const { promptMax } = effectiveLimits(voice);
    await pick(page, voice.slug);
    await expect.poll(() => page.locator('#params').getAttribute('data-model')).toBe(voice.slug);
    const prompt = '🌊'.repeat(promptMax + 1);
    await page.fill('#param-prompt', prompt);
    expect(await page.inputValue('#param-prompt')).toBe(prompt);
    expect(await page.locator('[data-param="prompt"] .hint').textContent()).toBe(`${promptMax + 1} / ${promptMax}`);
    const listed = await page.locator('#list li').count();
    await page.click('#submit');
    await expect.poll(() => page.locator('#issue-prompt').textContent()).toMatch(new RegExp(`\\b${promptMax}\\b`));
    expect(await page.locator('#list li').count()).toBe(listed);
  });

  it('a video result plays, an audio result is playable, a text result is shown inline', async () => {
    const page = await open();
    await pick(page, 'video-standard');
    await expect
      .poll(() => params(page))
      .toEqual(['prompt', 'input_image', 'aspect_ratio', 'resolution', 'duration', 'audio', 'seed', 'enhance']);
    await page.fill('#param-prompt', 'a paper boat drifting down a rainy street');
    await page.click('#submit');
    // The emulator's clips are WebM (VP8): the browser decodes them and plays them on, frame after frame.
    const clip = page.locator('#list li[data-status="completed"] video').first();
    await clip.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => clip.evaluate((el: HTMLVideoElement) => el.readyState >= 2 && [el.videoWidth, el.videoHeight]))
      .toEqual([320, 180]);
    const played = await clip.evaluate(async (el: HTMLVideoElement) => {
      await el.play();
      const frames = await new Promise<number>((resolve) => {
        let presented = 0;
        const count = (_now: number, meta: { presentedFrames: number }) => {
          presented = meta.presentedFrames;
          if (presented >= 4) resolve(presented);
          else el.requestVideoFrameCallback(count);
        };
        el.requestVideoFrameCallback(count);
        setTimeout(() => resolve(presented), 10_000);
      });
      return { frames, time: el.currentTime, error: el.error?.code ?? null, duration: el.duration };
    });
    expect(played.error).toBeNull();
    expect(played.frames).toBeGreaterThanOrEqual(4);
    expect(played.time).toBeGreaterThan(0.5);
    expect(played.duration).toBeCloseTo(5, 0);
    await clip.screenshot({ path: join(OUTPUT, 'studio-video.png') });

    await pick(page, 'audio-voice');
    await page.fill('#param-prompt', 'a calm voice reading a poem');
    await page.fill('#param-duration', '3');
    await page.click('#submit');
    const audio = page.locator('#list li[data-status="completed"] audio').first();
    await audio.waitFor({ timeout: 30_000 });
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.readyState >= 1 && el.duration)).toBeGreaterThan(0);

    await pick(page, 'text-writer');
    await page.fill('#param-prompt', 'a tagline for a mountain cafe');
    await page.click('#submit');
    await expect
      .poll(() => page.locator('#list li[data-status="completed"] .text-output').first().textContent(), { timeout: 30_000 })
      .toMatch(/mountain cafe/);
  });

  it('failures show their error and whether credits were refunded or forfeited; refusals show the service error', async () => {
    const page = await open();
    await page.fill('#param-prompt', 'a cat [[fail:model_unavailable]]');
    await page.click('#submit');
    await expect
      .poll(() => page.locator('#list li[data-status="failed"] .credits-note').first().getAttribute('data-refund'), { timeout: 20_000 })
      .toBe('refunded');
    await page.fill('#param-prompt', 'a statue [[flag]]');
    await page.click('#submit');
    const flagged = page.locator('#list li[data-status="failed"]').filter({ hasText: 'CONTENT_POLICY_VIOLATION' });
    await flagged.waitFor({ timeout: 20_000 });
    expect(await flagged.locator('.credits-note').getAttribute('data-refund')).toBe('forfeited');
    expect(await flagged.locator('.credits-note').textContent()).toMatch(/^4 credits forfeited/);

    await page.fill('#param-prompt', 'something [[blocked]]');
    await page.click('#submit');
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/CONTENT_POLICY_VIOLATION/);
  });

  it('a submit the service holds (billed, unanswered) is a card at once in another tab: submitting, no charge shown, then the same card completes', async () => {
    const page = await open();
    await page.fill('#param-prompt', 'held, then answered');
    // Its estimate answered first: the one `generate` request the fault holds is the submit (which
    // may first wait in the studio's gate while earlier tests' generations finish).
    await page.locator('#price[data-exact="true"]').waitFor({ timeout: 20_000 });
    await stack.emulator.faults.add({ endpoint: 'generate', when: 'after', hold: true });
    await page.click('#submit');
    await stack.emulator.faults.held({ min: 1 });
    // The same user's second tab, while the answer is held: the intent is listed as its own card.
    const other = await open();
    const card = other.locator('#list li').filter({ hasText: 'held, then answered' });
    await expect.poll(() => card.getAttribute('data-status'), { timeout: 20_000 }).toBe('submitting');
    expect(await card.locator('[data-submitting]').textContent()).toMatch(/never billed twice/);
    expect(await card.locator('.meta').textContent()).not.toMatch(/credits/);
    expect(await stack.emulator.faults.release()).toBe(1);
    // Followed by its key: the same card (one card, never a second) turns into the generation.
    await expect.poll(() => card.getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
    expect(await other.locator('#list li').filter({ hasText: 'held, then answered' }).count()).toBe(1);
    expect(await card.getAttribute('data-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("the page's first load lists only this browser's generations: another browser (another user) sees none of them", async () => {
    const page = await open();
    // Submitted as this browser's user (`page.request` sends its cookie), then the page loaded again.
    const submit = await page.request.post(`${stack.origin}/api/generations`, {
      headers: { 'content-type': 'application/json', 'idempotency-key': `k-${Date.now()}` },
      data: { model: 'image-fast', prompt: 'only mine' },
    });
    expect(submit.status()).toBe(202);
    const { generation_id: id } = (await submit.json()) as { generation_id: string };
    await page.reload();
    await page.locator(`#list li[data-id="${id}"]`).waitFor();

    const profile = mkdtempSync(join(tmpdir(), 'next-sample-other-'));
    const other = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
    try {
      const theirs = await other.newPage();
      await theirs.goto(`${stack.origin}/`);
      await theirs.locator('.empty').waitFor();
      expect(await theirs.locator(`#list li[data-id="${id}"]`).count()).toBe(0);
      // Their cookie: set on this first load, HttpOnly, SameSite=Lax (not Secure: plain http here).
      const cookies = await other.cookies(stack.origin);
      expect(cookies).toEqual([expect.objectContaining({ name: 'mediagen_user', httpOnly: true, sameSite: 'Lax', secure: false })]);
      expect(cookies[0]!.value).not.toBe((await context.cookies(stack.origin))[0]!.value);
    } finally {
      await other.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it('works with the keyboard: arrow keys move through the models, Enter in a field submits', async () => {
    const page = await open();
    await page.locator('.model-option input[value="image-fast"]').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('#params').getAttribute('data-model')).not.toBe('image-fast');
    await page.locator('.model-option input[value="legacy-image"]').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.locator('#params').getAttribute('data-model')).toBe('legacy-image');
    await page.locator('#param-prompt').focus();
    await page.keyboard.type('a red bicycle');
    await page.locator('#param-seed').focus();
    await page.keyboard.type('7');
    await page.keyboard.press('Enter');
    await page.locator('#list li[data-status="completed"]').filter({ hasText: 'a red bicycle' }).waitFor({ timeout: 20_000 });
  });
});
