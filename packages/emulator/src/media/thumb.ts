import { createHash } from 'node:crypto';
import { createInflate } from 'node:zlib';

/**
 * A small RGB picture of an input image (at most 64 pixels on its longer side): what a derived
 * output is drawn from. Kept per generation instead of the input itself, so 10,000 tracked
 * generations with inputs stay within the emulator's memory bound (12 KB each at most).
 */
export interface Thumb {
  width: number;
  height: number;
  /** width * height * 3 bytes, row by row. */
  rgb: Uint8Array;
  /**
   * True when the emulator could not decode the format (interlaced PNG, progressive JPEG,
   * WebP): the picture is a pattern made from the file's bytes, and outputs carry a marker.
   */
  approximate: boolean;
}

export const THUMB_MAX = 64;
/** Larger images are refused as unreadable (decoding time stays bounded). */
export const MAX_PIXELS = 50_000_000;
export const MAX_SIDE = 16_384;

export class UnreadableImage extends Error {}

/** Box-filters rows of RGB pixels into a thumbnail as they come, holding only the sums. */
export class Shrinker {
  readonly tw: number;
  readonly th: number;
  private readonly sums: Float64Array;
  private readonly counts: Uint32Array;

  constructor(
    private readonly width: number,
    private readonly height: number,
  ) {
    const s = Math.min(1, THUMB_MAX / Math.max(width, height));
    this.tw = Math.max(1, Math.round(width * s));
    this.th = Math.max(1, Math.round(height * s));
    this.sums = new Float64Array(this.tw * this.th * 3);
    this.counts = new Uint32Array(this.tw * this.th);
  }

  /** One pixel row (`rgb` of `width * 3` bytes) at row `y`. */
  row(y: number, rgb: Uint8Array, step = 1): void {
    const ty = Math.min(this.th - 1, Math.floor((y * this.th) / this.height));
    const cols = Math.ceil(this.width / step);
    for (let i = 0; i < cols; i++) {
      const x = i * step;
      const t = ty * this.tw + Math.min(this.tw - 1, Math.floor((x * this.tw) / this.width));
      this.sums[t * 3] = (this.sums[t * 3] as number) + (rgb[i * 3] as number);
      this.sums[t * 3 + 1] = (this.sums[t * 3 + 1] as number) + (rgb[i * 3 + 1] as number);
      this.sums[t * 3 + 2] = (this.sums[t * 3 + 2] as number) + (rgb[i * 3 + 2] as number);
      this.counts[t] = (this.counts[t] as number) + 1;
    }
  }

  done(): Thumb {
    const rgb = new Uint8Array(this.tw * this.th * 3);
    for (let t = 0; t < this.counts.length; t++) {
      const n = this.counts[t] || 1;
      for (let c = 0; c < 3; c++) rgb[t * 3 + c] = Math.round((this.sums[t * 3 + c] as number) / n);
    }
    return { width: this.tw, height: this.th, rgb, approximate: false };
  }
}

export const checkSize = (width: number, height: number): void => {
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) {
    throw new UnreadableImage(`the image is ${width}x${height}; the emulator reads images up to ${MAX_SIDE} px a side and 50 megapixels`);
  }
};

/**
 * Decodes a PNG into a thumbnail, inflating the pixel data as a stream one row at a time, so a
 * small file that inflates to gigabytes (a decompression bomb) costs two rows of memory and
 * stops at the last row the header promises. Every colour type and bit depth; Adam7-interlaced
 * images get the byte pattern instead (`approximate`).
 */
export async function pngThumb(buf: Buffer): Promise<Thumb> {
  let pos = 8;
  let width = 0;
  let height = 0;
  let depth = 0;
  let colour = -1;
  let interlace = 0;
  let palette: Uint8Array | null = null;
  const idat: Buffer[] = [];
  while (pos + 8 <= buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    if (pos + 12 + len > buf.length) throw new UnreadableImage('the PNG is cut short');
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      if (len < 13) throw new UnreadableImage('the PNG header is cut short');
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      depth = data[8] as number;
      colour = data[9] as number;
      interlace = data[12] as number;
    } else if (type === 'PLTE') palette = data;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colour];
  const depthOk = colour === 0 ? [1, 2, 4, 8, 16] : colour === 3 ? [1, 2, 4, 8] : [8, 16];
  if (channels === undefined || !depthOk.includes(depth)) throw new UnreadableImage('the PNG header is not valid');
  if (colour === 3 && !palette) throw new UnreadableImage('the indexed PNG has no palette');
  checkSize(width, height);
  if (idat.length === 0) throw new UnreadableImage('the PNG has no image data');
  if (interlace !== 0) return bytePattern(buf);

  const bpp = Math.max(1, (channels * depth) / 8);
  const stride = Math.ceil((width * channels * depth) / 8);
  const shrink = new Shrinker(width, height);
  let prev = new Uint8Array(stride);
  let cur = new Uint8Array(stride);
  let filter = -1;
  let fill = 0;
  let y = 0;
  const rgb = new Uint8Array(width * 3);
  const sample = (row: Uint8Array, i: number): number => {
    // The i-th sample of the row, scaled to 8 bits (16-bit: the high byte).
    if (depth === 8) return row[i] as number;
    if (depth === 16) return row[i * 2] as number;
    const perByte = 8 / depth;
    const v = ((row[Math.floor(i / perByte)] as number) >> (8 - depth * ((i % perByte) + 1))) & ((1 << depth) - 1);
    return colour === 3 ? v : Math.round((v * 255) / ((1 << depth) - 1));
  };
  const emit = (): void => {
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? (cur[i - bpp] as number) : 0;
      const b = prev[i] as number;
      const c = i >= bpp ? (prev[i - bpp] as number) : 0;
      const x = cur[i] as number;
      switch (filter) {
        case 0:
          break;
        case 1:
          cur[i] = (x + a) & 0xff;
          break;
        case 2:
          cur[i] = (x + b) & 0xff;
          break;
        case 3:
          cur[i] = (x + ((a + b) >> 1)) & 0xff;
          break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          cur[i] = (x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
          break;
        }
        default:
          throw new UnreadableImage(`the PNG has an unknown row filter ${filter}`);
      }
    }
    for (let x = 0; x < width; x++) {
      let r: number;
      let g: number;
      let bl: number;
      let alpha = 255;
      if (colour === 3) {
        const idx = sample(cur, x) * 3;
        r = palette?.[idx] ?? 0;
        g = palette?.[idx + 1] ?? 0;
        bl = palette?.[idx + 2] ?? 0;
      } else if (colour === 0 || colour === 4) {
        r = g = bl = sample(cur, x * channels);
        if (colour === 4) alpha = sample(cur, x * channels + 1);
      } else {
        r = sample(cur, x * channels);
        g = sample(cur, x * channels + 1);
        bl = sample(cur, x * channels + 2);
        if (colour === 6) alpha = sample(cur, x * channels + 3);
      }
      // Transparent pixels over white, as an image viewer shows them.
      const k = alpha / 255;
      rgb[x * 3] = Math.round(r * k + 255 * (1 - k));
      rgb[x * 3 + 1] = Math.round(g * k + 255 * (1 - k));
      rgb[x * 3 + 2] = Math.round(bl * k + 255 * (1 - k));
    }
    shrink.row(y, rgb);
    [prev, cur] = [cur, prev];
    y++;
  };

  await new Promise<void>((resolve, reject) => {
    const inflate = createInflate();
    let finished = false;
    const finish = (e?: unknown) => {
      if (finished) return;
      finished = true;
      inflate.destroy();
      if (e) reject(e);
      else resolve();
    };
    inflate.on('data', (chunk: Buffer) => {
      try {
        for (let i = 0; i < chunk.length && y < height; ) {
          if (filter < 0) {
            filter = chunk[i++] as number;
            fill = 0;
            continue;
          }
          const n = Math.min(stride - fill, chunk.length - i);
          cur.set(chunk.subarray(i, i + n), fill);
          fill += n;
          i += n;
          if (fill === stride) {
            emit();
            filter = -1;
          }
        }
        if (y >= height) finish();
      } catch (e) {
        finish(e);
      }
    });
    inflate.on('error', () => finish(new UnreadableImage('the PNG image data is not valid deflate data')));
    inflate.on('end', () => finish(y >= height ? undefined : new UnreadableImage('the PNG image data is cut short')));
    for (const part of idat) inflate.write(part);
    inflate.end();
  });
  return shrink.done();
}

/**
 * A picture made from a file the emulator cannot decode: 8x8 colours read from the bytes of
 * its compressed data (skipping the header), so two files give two patterns. Outputs drawn from
 * it carry a striped frame that says "derived from an input the emulator did not decode".
 */
export function bytePattern(buf: Uint8Array): Thumb {
  const n = 8;
  const rgb = new Uint8Array(n * n * 3);
  const from = Math.min(buf.length, 512);
  const span = Math.max(1, buf.length - from);
  const digest = createHash('sha256').update(buf).digest();
  for (let i = 0; i < n * n * 3; i++) {
    const at = from + Math.floor((i * span) / (n * n * 3));
    rgb[i] = buf.length > from ? (buf[at] as number) : (digest[i % 32] as number);
  }
  return { width: n, height: n, rgb, approximate: true };
}
