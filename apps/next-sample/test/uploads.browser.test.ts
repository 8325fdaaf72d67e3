import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, FLAGS, requireChromium } from './support/chromium';
import { type Stack, startStack } from './support/stack';

/**
 * A person in Chromium, on the built studio (`next start`) in front of the real emulator (loopback
 * inputs on, as `pnpm demo` runs it): chooses a photo from the computer, runs `image-upscale` and
 * `video-standard` (image-to-video) from it, and sees results drawn from it. The photo is two
 * solid halves, so "derived from it" is checkable: the output's left and right show its colours.
 */
const SHOTS = process.env.STUDIO_SCREENSHOTS ?? fileURLToPath(new URL('../test-output/', import.meta.url));
const LEFT = [230, 60, 40];
const RIGHT = [40, 90, 230];

/** A 64x48 PNG: the left half LEFT, the right half RIGHT. */
function photo(): Buffer {
  const width = 64;
  const height = 48;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set(x < width / 2 ? LEFT : RIGHT, y * (width * 3 + 1) + 1 + x * 3);
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The colours at 30% and 70% across the middle row of an image or a video's first frame, read in the page. */
async function colours(page: Page, bytes: Buffer, type: string): Promise<number[][]> {
  return page.evaluate(
    async ({ data, type }) => {
      const src = `data:${type};base64,${data}`;
      let drawable: CanvasImageSource;
      let width: number;
      let height: number;
      if (type.startsWith('video/')) {
        const video = document.createElement('video');
        video.muted = true;
        video.src = src;
        await new Promise((resolve, reject) => {
          video.onloadeddata = resolve;
          video.onerror = () => reject(new Error('the clip does not play'));
        });
        // A decoded frame to draw: seek into the opening second (it still shows the whole photo).
        await new Promise((resolve) => {
          video.onseeked = resolve;
          video.currentTime = 0.5;
        });
        drawable = video;
        width = video.videoWidth;
        height = video.videoHeight;
      } else {
        const image = new Image();
        image.src = src;
        await image.decode();
        drawable = image;
        width = image.naturalWidth;
        height = image.naturalHeight;
      }
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const context = canvas.getContext('2d') as CanvasRenderingContext2D;
      context.drawImage(drawable, 0, 0);
      return [0.3, 0.7, 0.5].map((at) => [...context.getImageData(Math.floor(width * at), Math.floor(height / 2), 1, 1).data.slice(0, 3)]);
    },
    { data: bytes.toString('base64'), type },
  );
}

const near = (got: number[], want: number[], tolerance: number) => got.every((v, i) => Math.abs(v - (want[i] as number)) <= tolerance);

describe('the studio in Chromium: a photo from the computer as the input', () => {
  let stack: Stack;
  let browser: Browser;
  const PHOTO = photo();

  beforeAll(async () => {
    requireChromium();
    mkdirSync(SHOTS, { recursive: true });
    stack = await startStack({ timeScale: 0.02 });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  const choose = async (page: Page, slug: string) => {
    await page.locator(`input[name="model"][value="${slug}"]`).check({ force: true });
    await expect.poll(() => page.locator('#params').getAttribute('data-model')).toBe(slug);
  };
  /** The newest card's output, once completed: its link and bytes. */
  const finished = async (page: Page, before: number) => {
    await expect.poll(() => page.locator('#list .card').count(), { timeout: 30_000 }).toBe(before + 1);
    const card = page.locator('#list .card').first();
    await expect.poll(() => card.getAttribute('data-status'), { timeout: 90_000 }).toBe('completed');
    const media = card.locator('.outputs img, .outputs video, .outputs audio').first();
    await media.waitFor();
    const url = (await media.getAttribute('src')) as string;
    const response = await fetch(new URL(url, stack.origin));
    expect(response.status).toBe(200);
    return { url, type: response.headers.get('content-type') ?? '', bytes: Buffer.from(await response.arrayBuffer()) };
  };

  it('image-upscale: the price line says in words what is missing, then runs from a chosen photo whose colours the result shows', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(stack.origin);
    await choose(page, 'image-upscale');
    // Before anything is chosen: no raw error under the price, but what is missing, in words.
    await expect.poll(() => page.locator('#price-note').textContent()).toBe('Add an image to upscale to see the price');
    await page.screenshot({ fullPage: true, path: `${SHOTS}studio-upscale-before-file.png` });
    expect(await page.locator('#price-note').textContent()).not.toMatch(/MODEL_CONTRACT_VIOLATION|request_id|422/);

    await page.locator('#param-input_image').setInputFiles({ name: 'two-halves.png', mimeType: 'image/png', buffer: PHOTO });
    await page.locator('#preview-input_image img').waitFor();
    // The file goes up once to be priced; the price is then the service's estimate.
    await expect.poll(() => page.locator('#price').getAttribute('data-exact'), { timeout: 30_000 }).toBe('true');
    await expect.poll(() => page.locator('#price-note').textContent()).toMatch(/^confirmed by estimate/);
    await page.screenshot({ fullPage: true, path: `${SHOTS}studio-upscale-file-dropped.png` });

    const before = await page.locator('#list .card').count();
    await page.locator('#submit').click();
    const output = await finished(page, before);
    expect(output.type).toBe('image/png');
    const [left, right] = await colours(page, output.bytes, output.type);
    expect(near(left!, LEFT, 12), `left ${left}`).toBe(true);
    expect(near(right!, RIGHT, 12), `right ${right}`).toBe(true);
    await page.screenshot({ fullPage: true, path: `${SHOTS}studio-upscale-finished.png` });
    expect(errors).toEqual([]);
    await page.context().close();
  }, 180_000);

  it('video-standard (image-to-video): the clip opens on the chosen photo', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(stack.origin);
    await choose(page, 'video-standard');
    await page.locator('#param-prompt').fill('the photo comes alive');
    await page.locator('#param-input_image').setInputFiles({ name: 'two-halves.png', mimeType: 'image/png', buffer: PHOTO });
    await page.locator('#preview-input_image img').waitFor();
    await expect.poll(() => page.locator('#price').getAttribute('data-exact'), { timeout: 30_000 }).toBe('true');
    const before = await page.locator('#list .card').count();
    await page.locator('#submit').click();
    const output = await finished(page, before);
    expect(output.type).toBe('video/webm');
    const [left, right] = await colours(page, output.bytes, output.type);
    // VP8 previews: colours within a lossy codec's reach.
    expect(near(left!, LEFT, 48), `left ${left}`).toBe(true);
    expect(near(right!, RIGHT, 48), `right ${right}`).toBe(true);
    await page.screenshot({ fullPage: true, path: `${SHOTS}studio-video-finished.png` });
    await page.context().close();
  }, 240_000);

  it('audio-voice (audio-to-audio) takes a recording from the computer: a player previews it, and it runs', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(stack.origin);
    await choose(page, 'audio-voice');
    await page.locator('#param-prompt').fill('say it in this voice');
    // A tenth of a second of silence, 8 kHz mono 8-bit.
    const samples = 800;
    const wav = Buffer.alloc(44 + samples, 128);
    wav.write('RIFF', 0, 'latin1');
    wav.writeUInt32LE(36 + samples, 4);
    wav.write('WAVEfmt ', 8, 'latin1');
    wav.writeUInt32LE(16, 16);
    wav.writeUInt16LE(1, 20);
    wav.writeUInt16LE(1, 22);
    wav.writeUInt32LE(8000, 24);
    wav.writeUInt32LE(8000, 28);
    wav.writeUInt16LE(1, 32);
    wav.writeUInt16LE(8, 34);
    wav.write('data', 36, 'latin1');
    wav.writeUInt32LE(samples, 40);
    await page.locator('#param-input_audio').setInputFiles({ name: 'voice.wav', mimeType: 'audio/wav', buffer: wav });
    await page.locator('#preview-input_audio audio').waitFor();
    await expect.poll(() => page.locator('#price').getAttribute('data-exact'), { timeout: 30_000 }).toBe('true');
    const before = await page.locator('#list .card').count();
    await page.locator('#submit').click();
    const output = await finished(page, before);
    expect(output.type).toMatch(/^audio\//);
    await page.context().close();
  }, 180_000);
});
