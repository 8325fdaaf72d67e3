import { encodePng } from './png.js';
import { rng } from './random.js';
import type { Thumb } from './thumb.js';

/**
 * Outputs drawn from an input image's thumbnail, so a person sees their picture in the result:
 * the input fitted whole into the output (letterboxed, never cropped), smoothly scaled, and for
 * models that restyle (`tint`) shifted a quarter of the way towards a colour from the seed. An
 * input the emulator could not decode (`approximate`) gets a striped frame around the pattern.
 */

export type DeriveMode = 'exact' | 'tint';

/** The colour the input is tinted towards, from the seed. */
function tintOf(seed: number): [number, number, number] {
  const hue = rng(seed)() * 6;
  const x = 1 - Math.abs((hue % 2) - 1);
  const [r, g, b] = hue < 1 ? [1, x, 0] : hue < 2 ? [x, 1, 0] : hue < 3 ? [0, 1, x] : hue < 4 ? [0, x, 1] : hue < 5 ? [x, 0, 1] : [1, 0, x];
  return [Math.round(r * 255), Math.round(g * 255), Math.round(b * 255)];
}

/** Where the picture sits in a `width` x `height` frame: fitted whole, centred. */
function fit(src: Thumb, width: number, height: number): { x0: number; y0: number; w: number; h: number } {
  const s = Math.min(width / src.width, height / src.height);
  const w = Math.max(1, Math.round(src.width * s));
  const h = Math.max(1, Math.round(src.height * s));
  return { x0: Math.floor((width - w) / 2), y0: Math.floor((height - h) / 2), w, h };
}

/** Bilinear sample of the thumbnail at (u, v) in [0, 1]. */
function sample(src: Thumb, u: number, v: number, out: number[]): void {
  const fx = Math.max(0, Math.min(src.width - 1, u * src.width - 0.5));
  const fy = Math.max(0, Math.min(src.height - 1, v * src.height - 0.5));
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const x1 = Math.min(src.width - 1, x0 + 1);
  const y1 = Math.min(src.height - 1, y0 + 1);
  const ax = fx - x0;
  const ay = fy - y0;
  for (let c = 0; c < 3; c++) {
    const p = (x: number, y: number) => src.rgb[(y * src.width + x) * 3 + c] as number;
    const top = p(x0, y0) * (1 - ax) + p(x1, y0) * ax;
    const bottom = p(x0, y1) * (1 - ax) + p(x1, y1) * ax;
    out[c] = top * (1 - ay) + bottom * ay;
  }
}

/** Median cut: at most `n` colours that represent the thumbnail's pixels. */
function quantize(src: Thumb, n: number): number[][] {
  const pixels: number[][] = [];
  for (let i = 0; i < src.width * src.height; i++)
    pixels.push([src.rgb[i * 3] as number, src.rgb[i * 3 + 1] as number, src.rgb[i * 3 + 2] as number]);
  let boxes = [pixels];
  while (boxes.length < n) {
    let best = -1;
    let bestRange = 0;
    let bestChannel = 0;
    boxes.forEach((box, i) => {
      for (let c = 0; c < 3; c++) {
        let lo = 255;
        let hi = 0;
        for (const p of box) {
          lo = Math.min(lo, p[c] as number);
          hi = Math.max(hi, p[c] as number);
        }
        if (hi - lo > bestRange) {
          bestRange = hi - lo;
          best = i;
          bestChannel = c;
        }
      }
    });
    if (best < 0) break;
    const box = (boxes[best] as number[][]).sort((a, b) => (a[bestChannel] as number) - (b[bestChannel] as number));
    const mid = box.length >> 1;
    boxes = [...boxes.slice(0, best), box.slice(0, mid), box.slice(mid), ...boxes.slice(best + 1)];
  }
  return boxes.map((box) => [0, 1, 2].map((c) => Math.round(box.reduce((s, p) => s + (p[c] as number), 0) / box.length)));
}

const HAZARD: [number[], number[]] = [
  [24, 24, 24],
  [250, 204, 21],
];
/** The letterbox colour around an input whose shape differs from the output's. */
const BAR = [18, 18, 22];

/**
 * A PNG of `width` x `height` drawn from `src`. Indexed colour like every emulator PNG: a
 * palette of the input's own colours (median cut), smooth scaling computed on a grid of at most
 * 512 cells a side, then each cell widened to its pixels.
 */
export function derivePng(width: number, height: number, seed: number, src: Thumb, mode: DeriveMode): Buffer {
  const tint = tintOf(seed);
  const colours = quantize(src, 252).map((c) => (mode === 'tint' ? c.map((v, i) => Math.round(v * 0.75 + (tint[i] as number) * 0.25)) : c));
  const barIndex = colours.length;
  const hazardIndex = barIndex + 1;
  const palette = new Uint8Array(256 * 3);
  colours.forEach((c, i) => {
    palette.set(c, i * 3);
  });
  palette.set(BAR, barIndex * 3);
  palette.set(HAZARD[0], hazardIndex * 3);
  palette.set(HAZARD[1], (hazardIndex + 1) * 3);

  // Nearest palette entry for each 15-bit colour.
  const lut = new Uint8Array(32768);
  for (let k = 0; k < 32768; k++) {
    const r = ((k >> 10) << 3) + 4;
    const g = (((k >> 5) & 31) << 3) + 4;
    const b = ((k & 31) << 3) + 4;
    let best = 0;
    let bestD = Infinity;
    for (let i = 0; i < colours.length; i++) {
      const c = colours[i] as number[];
      const d = ((c[0] as number) - r) ** 2 + ((c[1] as number) - g) ** 2 + ((c[2] as number) - b) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    lut[k] = best;
  }
  const solid = colours.length === 1;

  const cell = Math.max(1, Math.ceil(Math.max(width, height) / 512));
  const gw = Math.ceil(width / cell);
  const gh = Math.ceil(height / cell);
  const box = fit(src, width, height);
  const grid = new Uint8Array(gw * gh);
  const rgb = [0, 0, 0];
  for (let gy = 0; gy < gh; gy++) {
    const py = gy * cell + cell / 2;
    for (let gx = 0; gx < gw; gx++) {
      const px = gx * cell + cell / 2;
      if (px < box.x0 || px >= box.x0 + box.w || py < box.y0 || py >= box.y0 + box.h) {
        grid[gy * gw + gx] = barIndex;
        continue;
      }
      if (solid) continue; // index 0
      sample(src, (px - box.x0) / box.w, (py - box.y0) / box.h, rgb);
      const t = mode === 'tint' ? 0.25 : 0;
      const r = (rgb[0] as number) * (1 - t) + (tint[0] as number) * t;
      const g = (rgb[1] as number) * (1 - t) + (tint[1] as number) * t;
      const b = (rgb[2] as number) * (1 - t) + (tint[2] as number) * t;
      grid[gy * gw + gx] = lut[((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3)] as number;
    }
  }
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const g = Math.floor(y / cell) * gw;
    const o = y * width;
    for (let x = 0; x < width; x++) pixels[o + x] = grid[g + Math.floor(x / cell)] as number;
  }
  if (src.approximate) stripeFrame(pixels, width, height, hazardIndex);
  return encodePng(width, height, palette, pixels);
}

/** A diagonal black-and-yellow frame: "drawn from an input the emulator did not decode". */
function stripeFrame(pixels: Uint8Array, width: number, height: number, first: number): void {
  const edge = Math.max(4, Math.round(Math.min(width, height) * 0.04));
  for (let y = 0; y < height; y++) {
    const inRow = y < edge || y >= height - edge;
    for (let x = 0; x < width; x++) {
      if (inRow || x < edge || x >= width - edge) pixels[y * width + x] = first + (Math.floor((x + y) / edge) % 2);
    }
  }
}

/**
 * The colours of one video frame of `cols` x `rows` macroblocks drawn from `src`: the first
 * frame (`progress` 0) is the input fitted whole; later frames zoom slowly into its centre, as
 * image-to-video clips open on the given picture. RGB per macroblock.
 */
export function frameFrom(src: Thumb, cols: number, rows: number, progress: number): Uint8Array {
  const out = new Uint8Array(cols * rows * 3);
  const fitted = fit(src, cols, rows);
  // The fitted picture grows about the frame's centre: the bars shrink, then its edges leave the frame.
  const zoom = 1 + 0.25 * progress;
  const w = fitted.w * zoom;
  const h = fitted.h * zoom;
  const x0 = (cols - w) / 2;
  const y0 = (rows - h) / 2;
  const rgb = [0, 0, 0];
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      const at = (y * cols + x) * 3;
      const u = (x + 0.5 - x0) / w;
      const v = (y + 0.5 - y0) / h;
      if (u < 0 || u >= 1 || v < 0 || v >= 1) {
        out.set(BAR, at);
        continue;
      }
      sample(src, u, v, rgb);
      out[at] = Math.round(rgb[0] as number);
      out[at + 1] = Math.round(rgb[1] as number);
      out[at + 2] = Math.round(rgb[2] as number);
    }
  }
  return out;
}
