/**
 * A deliberately small VP8 key-frame encoder (the bitstream of RFC 6386), enough for the
 * emulator's video previews to be real video a browser plays: every macroblock is one flat
 * colour, predicted with DC_PRED and corrected by a DC-only residual, so no transform, no
 * loop filter and no motion search are needed. Each frame is a key frame.
 */

/** The boolean entropy encoder of RFC 6386 section 7.3. */
class BoolEncoder {
  readonly #out: number[] = [];
  #range = 255;
  #bottom = 0;
  #bitCount = 24;

  bool(prob: number, bit: boolean | number): void {
    const split = 1 + (((this.#range - 1) * prob) >> 8);
    if (bit) {
      this.#bottom = (this.#bottom + split) >>> 0;
      this.#range -= split;
    } else {
      this.#range = split;
    }
    while (this.#range < 128) {
      this.#range <<= 1;
      if (this.#bottom & 0x80000000) this.#carry();
      this.#bottom = (this.#bottom << 1) >>> 0;
      if (--this.#bitCount === 0) {
        this.#out.push(this.#bottom >>> 24);
        this.#bottom &= 0xffffff;
        this.#bitCount = 8;
      }
    }
  }

  /** An unsigned value, most significant bit first, each bit at even odds. */
  literal(bits: number, value: number): void {
    for (let b = bits - 1; b >= 0; b--) this.bool(128, (value >> b) & 1);
  }

  finish(): Uint8Array {
    let c = this.#bitCount;
    let v = this.#bottom;
    if (Math.floor(v / 2 ** (32 - c)) & 1) this.#carry();
    v = (v << (c & 7)) >>> 0;
    for (c >>= 3; c > 0; c--) v = (v << 8) >>> 0;
    for (let i = 0; i < 4; i++, v = (v << 8) >>> 0) this.#out.push(v >>> 24);
    return Uint8Array.from(this.#out);
  }

  #carry(): void {
    let i = this.#out.length - 1;
    while (i >= 0 && this.#out[i] === 255) this.#out[i--] = 0;
    if (i >= 0) this.#out[i] = (this.#out[i] as number) + 1;
  }
}

/**
 * The frame header's coefficient-probability update flags are coded with these
 * probabilities (RFC 6386 section 13.4), 4 block types x 8 bands x 3 contexts x 11 nodes, all
 * 255 but the runs listed here as [offset, ...values]. This encoder updates none.
 */
const UPDATE_PROBS = (() => {
  const table = new Uint8Array(1056).fill(255);
  const runs: number[][] = [
    [33, 176, 246],
    [44, 223, 241, 252],
    [55, 249, 253, 253],
    [67, 244, 252],
    [77, 234, 254, 254],
    [88, 253],
    [100, 246, 254],
    [110, 239, 253, 254],
    [121, 254, 255, 254],
    [133, 248, 254],
    [143, 251, 255, 254],
    [166, 253, 254],
    [176, 251, 254, 254],
    [187, 254, 255, 254],
    [199, 254, 253, 255, 254],
    [209, 250, 255, 254, 255, 254],
    [220, 254],
    [264, 217],
    [275, 225, 252, 241, 253],
    [281, 254],
    [286, 234, 250, 241, 250, 253, 255, 253, 254],
    [298, 254],
    [308, 223, 254, 254],
    [319, 238, 253, 254, 254],
    [331, 248, 254],
    [341, 249, 254],
    [364, 253],
    [374, 247, 254],
    [397, 253, 254],
    [407, 252],
    [430, 254, 254],
    [440, 253],
    [463, 254, 253],
    [473, 250],
    [484, 254],
    [528, 186, 251, 250],
    [539, 234, 251, 244, 254],
    [550, 251, 251, 243, 253, 254, 255, 254],
    [562, 253, 254],
    [572, 236, 253, 254],
    [583, 251, 253, 253, 254, 254],
    [595, 254, 254],
    [605, 254, 254, 254],
    [628, 254],
    [638, 254, 254],
    [649, 254],
    [671, 254],
    [792, 248],
    [803, 250, 254, 252, 254],
    [814, 248, 254, 249, 253],
    [826, 253, 253],
    [836, 246, 253, 253],
    [847, 252, 254, 251, 254, 254],
    [859, 254, 252],
    [869, 248, 254, 253],
    [880, 253, 255, 254, 254],
    [892, 251, 254],
    [902, 245, 251, 254],
    [913, 253, 253, 254],
    [925, 251, 253],
    [935, 252, 253, 254],
    [947, 254],
    [958, 252],
    [968, 249, 255, 254],
    [981, 254],
    [992, 253],
    [1001, 250],
    [1034, 254],
  ];
  for (const [at, ...values] of runs) table.set(values, at as number);
  return table;
})();

/**
 * The default token probabilities (RFC 6386 section 13.5) of the few contexts this encoder
 * codes, by block type, band and context: DC tokens of the Y2 (type 1) and chroma (type 2)
 * blocks, and end-of-block right after them or, for luma (type 0, from coefficient 1), at once.
 */
const TOKEN_PROBS: Record<string, readonly number[]> = {
  '0/1/0': [253],
  '1/0/0': [198, 35, 237, 223, 193, 187, 162, 160, 145, 155, 62],
  '1/0/1': [131, 45, 198, 221, 172, 176, 220, 157, 252, 221, 1],
  '1/0/2': [68, 47, 146, 208, 149, 167, 221, 162, 255, 223, 128],
  '1/1/1': [184],
  '1/1/2': [81],
  '2/0/0': [253, 9, 248, 251, 207, 208, 255, 192, 128, 128, 128],
  '2/0/1': [175, 13, 224, 243, 193, 185, 249, 198, 255, 255, 128],
  '2/0/2': [73, 17, 171, 221, 161, 179, 236, 167, 255, 234, 128],
  '2/1/1': [239],
  '2/1/2': [155],
};
const probs = (type: number, band: number, context: number): readonly number[] =>
  TOKEN_PROBS[`${type}/${band}/${context}`] as readonly number[];

/** Extra-bit probabilities of the token categories (RFC 6386 section 13.2), with each category's first value. */
const CATEGORIES: ReadonlyArray<[base: number, probs: readonly number[]]> = [
  [5, [159]],
  [7, [165, 145]],
  [11, [173, 148, 140]],
  [19, [176, 155, 140, 135]],
  [35, [180, 157, 141, 134, 130]],
  [67, [254, 254, 243, 230, 196, 177, 153, 140, 133, 130, 129]],
];

/** One non-zero coefficient's token (after the not-end-of-block bit), walking the token tree. */
function writeToken(e: BoolEncoder, p: readonly number[], value: number): void {
  const v = Math.abs(value);
  e.bool(p[1] as number, 1); // not zero
  if (v === 1) e.bool(p[2] as number, 0);
  else {
    e.bool(p[2] as number, 1);
    if (v <= 4) {
      e.bool(p[3] as number, 0);
      e.bool(p[4] as number, v > 2);
      if (v > 2) e.bool(p[5] as number, v === 4);
    } else {
      e.bool(p[3] as number, 1);
      const cat = v <= 6 ? 0 : v <= 10 ? 1 : v <= 18 ? 2 : v <= 34 ? 3 : v <= 66 ? 4 : 5;
      e.bool(p[6] as number, cat >= 2);
      if (cat < 2) e.bool(p[7] as number, cat === 1);
      else {
        e.bool(p[8] as number, cat >= 4);
        e.bool(p[cat < 4 ? 9 : 10] as number, cat % 2 === 1);
      }
      const [base, extra] = CATEGORIES[cat] as [number, readonly number[]];
      for (const [i, prob] of extra.entries()) e.bool(prob, ((v - base) >> (extra.length - 1 - i)) & 1);
    }
  }
  e.bool(128, value < 0);
}

/**
 * A Y2 or chroma block whose only coefficient is its DC (`dc`, 0 for none): the token, then
 * end-of-block. Returns whether the block has a non-zero coefficient (its neighbours' context).
 */
function writeDcBlock(e: BoolEncoder, type: 1 | 2, context: number, dc: number): boolean {
  const p = probs(type, 0, context);
  e.bool(p[0] as number, dc !== 0);
  if (dc === 0) return false;
  writeToken(e, p, dc);
  e.bool(probs(type, 1, Math.abs(dc) === 1 ? 1 : 2)[0] as number, 0);
  return true;
}

/** A luma subblock (type 0, from coefficient 1, band 1) with nothing beyond the Y2's DC: end-of-block at once. */
const writeEmptyLumaBlock = (e: BoolEncoder): void => e.bool(probs(0, 1, 0)[0] as number, 0);

/** A flat colour per macroblock: Y, U, V planes of `cols` x `rows` values (0-255). */
export interface MacroblockImage {
  cols: number;
  rows: number;
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
}

/** DC_PRED of a flat-block plane: the mean of the edges that exist, else 128. */
function predict(plane: Uint8Array, cols: number, x: number, y: number, edge: number): number {
  const above = y > 0 ? (plane[(y - 1) * cols + x] as number) : undefined;
  const left = x > 0 ? (plane[y * cols + x - 1] as number) : undefined;
  if (above === undefined && left === undefined) return 128;
  if (above === undefined || left === undefined) return (above ?? left) as number;
  const shift = Math.log2(edge) + 1;
  return (edge * (above + left) + (1 << (shift - 1))) >> shift;
}

/** One key frame of `width` x `height` pixels showing `image` (one colour per macroblock). */
export function encodeKeyFrame(width: number, height: number, image: MacroblockImage): Uint8Array {
  const { cols, rows } = image;
  const header = new BoolEncoder();
  header.literal(1, 0); // colour space: YUV
  header.literal(1, 0); // clamping required
  header.literal(1, 0); // no segmentation
  header.literal(1, 0); // normal loop filter...
  header.literal(6, 0); // ...at level 0: off, so flat blocks stay flat
  header.literal(3, 0); // sharpness
  header.literal(1, 0); // no loop-filter deltas
  header.literal(2, 0); // one token partition
  header.literal(7, 0); // quantizer index 0: DC steps of 4 (8 for Y2)
  header.literal(5, 0); // no quantizer deltas
  header.literal(1, 0); // refresh_entropy_probs: keep defaults
  for (const prob of UPDATE_PROBS) header.bool(prob, 0); // no token probability updates
  header.literal(1, 0); // no macroblock skip flags

  const tokens = new BoolEncoder();
  const aboveY2 = new Uint8Array(cols);
  const aboveU = new Uint8Array(cols * 2);
  const aboveV = new Uint8Array(cols * 2);
  for (let my = 0; my < rows; my++) {
    let leftY2 = 0;
    const leftU = [0, 0];
    const leftV = [0, 0];
    for (let mx = 0; mx < cols; mx++) {
      // Mode: DC_PRED for luma (key-frame y-mode tree: not B_PRED, then DC) and chroma.
      header.bool(145, 1);
      header.bool(156, 0);
      header.bool(163, 0);
      header.bool(142, 0);
      const at = my * cols + mx;
      // Luma: the Y2 block's DC sets every subblock's DC; a step of 8 per unit, then >> 3 twice.
      const dy = (image.y[at] as number) - predict(image.y, cols, mx, my, 16);
      const y2 = writeDcBlock(tokens, 1, (aboveY2[mx] as number) + leftY2, dy * 8);
      aboveY2[mx] = leftY2 = y2 ? 1 : 0;
      // Luma subblocks: their neighbours are empty too, so the context is always 0.
      for (let i = 0; i < 16; i++) writeEmptyLumaBlock(tokens);
      // Chroma: four 4x4 blocks per plane, each with the same DC (a step of 4 per unit, then >> 3).
      for (const [plane, above, left] of [
        [image.u, aboveU, leftU],
        [image.v, aboveV, leftV],
      ] as const) {
        const dc = ((plane[at] as number) - predict(plane, cols, mx, my, 8)) * 2;
        for (let b = 0; b < 4; b++) {
          const col = mx * 2 + (b & 1);
          const row = b >> 1;
          const nz = writeDcBlock(tokens, 2, (above[col] as number) + (left[row] as number), dc) ? 1 : 0;
          above[col] = nz;
          left[row] = nz;
        }
      }
    }
  }

  const first = header.finish();
  const second = tokens.finish();
  const frame = new Uint8Array(10 + first.length + second.length);
  const tag = (first.length << 5) | (1 << 4); // key frame, version 0, shown
  frame.set([tag & 0xff, (tag >> 8) & 0xff, (tag >> 16) & 0xff, 0x9d, 0x01, 0x2a]);
  frame.set([width & 0xff, (width >> 8) & 0x3f, height & 0xff, (height >> 8) & 0x3f], 6);
  frame.set(first, 10);
  frame.set(second, 10 + first.length);
  return frame;
}
