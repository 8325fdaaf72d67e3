import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CatalogEntry, Normalized, OutputFormat } from './catalog.js';
import { LINK_TTL_MS, type OutputLinkParts, outputLinkPath, parseOutputLinkSegments } from './constants.js';
import { derivePng } from './media/derive.js';
import { renderPng } from './media/png.js';
import { renderText } from './media/text.js';
import type { Thumb } from './media/thumb.js';
import { renderWav } from './media/wav.js';
import { renderWebm } from './media/webm.js';

export const MIME: Record<OutputFormat, string> = {
  png: 'image/png',
  webm: 'video/webm',
  wav: 'audio/wav',
  txt: 'text/plain; charset=utf-8',
};

export const filenameFor = (entry: CatalogEntry, p: Normalized, index: number): string =>
  `${entry.model.slug}-${index + 1}.${entry.output(p).format}`;

/**
 * Signs output links with a secret that lives only in this process: links are bearer
 * credentials, so nothing outside the emulator can mint one.
 */
export class LinkSigner {
  private readonly secret = randomBytes(32);

  private mac(id: string, exp: number, index: number): string {
    return createHmac('sha256', this.secret).update(`${id}.${exp}.${index}`).digest('base64url');
  }

  /** Links valid for 3 days from `nowMs` (the moment the carrying response is generated). */
  links(base: string, id: string, entry: CatalogEntry, p: Normalized, nowMs: number): string[] {
    const exp = Math.floor((nowMs + LINK_TTL_MS) / 1000);
    const urls: string[] = [];
    for (let i = 0; i < p.number_results; i++) {
      const path = outputLinkPath({
        generationId: id,
        expiry: exp,
        signature: this.mac(id, exp, i),
        index: i,
        filename: filenameFor(entry, p, i),
      });
      urls.push(`${base}${path}`);
    }
    return urls;
  }

  verify(id: string, exp: number, sig: string, index: number): boolean {
    const want = Buffer.from(this.mac(id, exp, index));
    const got = Buffer.from(sig);
    return got.length === want.length && timingSafeEqual(got, want);
  }
}

/**
 * The five segments of a link path after `/api/v1/output/`, read by the wire's rules: numbers
 * in canonical form only (no `05`, `0.0`, `-0`), valid percent-encoding, and text segments
 * spelled as `outputLinkPath` spells them. Undefined otherwise: the router answers an invalid link.
 */
export function parseLinkParts(segments: readonly string[]): OutputLinkParts | undefined {
  const parts = parseOutputLinkSegments(segments);
  // One spelling per link: text segments encoded exactly as the links this emulator hands out.
  return parts && outputLinkPath(parts).endsWith(`/${segments.join('/')}`) ? parts : undefined;
}

/** 32-bit seed of one output, from the full normalised params and the output index. */
export type OutputSeed = number;

/**
 * Renders outputs on demand instead of storing them: 10,000 tracked generations must fit
 * in 200 MB. A small LRU keeps repeated downloads (and polling clients) cheap.
 */
export class OutputCache {
  private readonly cache = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string, make: () => Buffer): Buffer {
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const buf = make();
    this.cache.set(key, buf);
    this.bytes += buf.length;
    for (const [k, v] of this.cache) {
      if (this.bytes <= this.maxBytes || this.cache.size <= 1) break;
      this.cache.delete(k);
      this.bytes -= v.length;
    }
    return buf;
  }

  clear(): void {
    this.cache.clear();
    this.bytes = 0;
  }
}

/**
 * One output's bytes. `source` is the thumbnail of the generation's input image, when it has
 * one: image outputs are drawn from it (as the model's `derive` says) and video clips open on it.
 */
export function renderOutput(entry: CatalogEntry, p: Normalized, seed: OutputSeed, source?: Thumb): Buffer {
  const shape = entry.output(p);
  switch (shape.format) {
    case 'png':
      return source
        ? derivePng(shape.width, shape.height, seed, source, entry.derive ?? 'tint')
        : renderPng(shape.width, shape.height, seed);
    case 'webm':
      return renderWebm(shape.width, shape.height, shape.seconds, seed, source);
    case 'wav':
      return renderWav(shape.seconds, seed);
    case 'txt':
      return renderText(p.prompt, seed);
  }
}
