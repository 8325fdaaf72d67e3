import { bytePattern, checkSize, Shrinker, type Thumb, UnreadableImage } from './thumb.js';

/**
 * A thumbnail of a baseline JPEG from its DC coefficients alone: each 8x8 block's DC value is
 * the block's mean, so the Huffman-coded data is read (AC coefficients skipped, not transformed)
 * and the picture comes out at 1/8 scale with no inverse DCT. Enough to show a person's photo in
 * an output; not a JPEG decoder. Progressive, arithmetic-coded, lossless and CMYK files get the
 * byte pattern instead (`approximate`).
 */

interface Huffman {
  /** Per code length 1..16: the largest code of that length (-1 when none), and the index of its first symbol. */
  maxCode: Int32Array;
  valPtr: Int32Array;
  minCode: Int32Array;
  symbols: Uint8Array;
}

function huffman(counts: Uint8Array, symbols: Uint8Array): Huffman {
  const maxCode = new Int32Array(18).fill(-1);
  const valPtr = new Int32Array(17);
  const minCode = new Int32Array(17);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    const n = counts[len - 1] as number;
    if (n > 0) {
      valPtr[len] = k;
      minCode[len] = code;
      code += n;
      k += n;
      maxCode[len] = code - 1;
    }
    code <<= 1;
  }
  return { maxCode, valPtr, minCode, symbols };
}

interface Component {
  id: number;
  h: number;
  v: number;
  tq: number;
  /** DC value per block (0-255), on a grid of `bw` x `bh` blocks. */
  grid: Uint8Array;
  bw: number;
  bh: number;
  pred: number;
  dc?: Huffman;
  ac?: Huffman;
}

export function jpegThumb(buf: Buffer): Thumb {
  const q0 = new Map<number, number>();
  const dcTables = new Map<number, Huffman>();
  const acTables = new Map<number, Huffman>();
  let comps: Component[] = [];
  let width = 0;
  let height = 0;
  let hmax = 1;
  let vmax = 1;
  let restart = 0;
  let frame = false;
  let scanned = false;
  let pos = 2;
  const u16 = (at: number): number => ((buf[at] as number) << 8) | (buf[at + 1] as number);

  while (pos + 4 <= buf.length) {
    if (buf[pos] !== 0xff) throw new UnreadableImage('the JPEG is not valid (a marker was expected)');
    const marker = buf[pos + 1] as number;
    if (marker === 0xff) {
      pos++;
      continue;
    }
    if (marker === 0xd9) break; // EOI
    if (marker >= 0xd0 && marker <= 0xd7) {
      pos += 2;
      continue;
    }
    const len = u16(pos + 2);
    const seg = buf.subarray(pos + 4, pos + 2 + len);
    if (len < 2 || pos + 2 + len > buf.length) throw new UnreadableImage('the JPEG is cut short');
    if (marker === 0xdb) {
      for (let i = 0; i < seg.length; ) {
        const pq = (seg[i] as number) >> 4;
        const tq = (seg[i] as number) & 15;
        q0.set(tq, pq ? u16(pos + 4 + i + 1) : (seg[i + 1] as number));
        i += 1 + 64 * (pq ? 2 : 1);
      }
    } else if (marker === 0xc4) {
      for (let i = 0; i < seg.length; ) {
        const tc = (seg[i] as number) >> 4;
        const th = (seg[i] as number) & 15;
        const counts = seg.subarray(i + 1, i + 17);
        const total = counts.reduce((a, b) => a + b, 0);
        const table = huffman(counts, seg.subarray(i + 17, i + 17 + total));
        (tc === 0 ? dcTables : acTables).set(th, table);
        i += 17 + total;
      }
    } else if (marker === 0xdd) {
      restart = u16(pos + 4);
    } else if (marker === 0xc0 || marker === 0xc1) {
      height = u16(pos + 5);
      width = u16(pos + 7);
      const n = seg[5] as number;
      checkSize(width, height);
      if (n !== 1 && n !== 3) return bytePattern(buf);
      comps = [];
      for (let i = 0; i < n; i++) {
        const hv = seg[7 + i * 3] as number;
        comps.push({
          id: seg[6 + i * 3] as number,
          h: hv >> 4 || 1,
          v: hv & 15 || 1,
          tq: seg[8 + i * 3] as number,
          grid: new Uint8Array(0),
          bw: 0,
          bh: 0,
          pred: 0,
        });
      }
      hmax = Math.max(...comps.map((c) => c.h));
      vmax = Math.max(...comps.map((c) => c.v));
      const mcusX = Math.ceil(width / (8 * hmax));
      const mcusY = Math.ceil(height / (8 * vmax));
      for (const c of comps) {
        c.bw = mcusX * c.h;
        c.bh = mcusY * c.v;
        c.grid = new Uint8Array(c.bw * c.bh).fill(128);
      }
      frame = true;
    } else if (marker >= 0xc2 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      // Progressive, lossless, hierarchical or arithmetic-coded: not read here.
      checkSize(u16(pos + 7), u16(pos + 5));
      return bytePattern(buf);
    } else if (marker === 0xda) {
      if (!frame) throw new UnreadableImage('the JPEG has a scan before its frame header');
      const ns = seg[0] as number;
      const inScan: Component[] = [];
      for (let i = 0; i < ns; i++) {
        const c = comps.find((x) => x.id === seg[1 + i * 2]);
        if (!c) throw new UnreadableImage('the JPEG scan names an unknown component');
        const t = seg[2 + i * 2] as number;
        c.dc = dcTables.get(t >> 4);
        c.ac = acTables.get(t & 15);
        if (!c.dc || !c.ac) throw new UnreadableImage('the JPEG scan uses a Huffman table it does not define');
        c.pred = 0;
        inScan.push(c);
      }
      pos = scan(buf, pos + 2 + len, inScan, { width, height, hmax, vmax, restart, q0 });
      scanned = true;
      continue;
    }
    pos += 2 + len;
  }
  if (!scanned) throw new UnreadableImage('the JPEG has no image data');

  // One pixel per 8x8 block of the full image.
  const pw = Math.ceil(width / 8);
  const ph = Math.ceil(height / 8);
  const shrink = new Shrinker(pw, ph);
  const row = new Uint8Array(pw * 3);
  const at = (c: Component, bx: number, by: number): number =>
    c.grid[Math.min(c.bh - 1, Math.floor((by * c.v) / vmax)) * c.bw + Math.min(c.bw - 1, Math.floor((bx * c.h) / hmax))] as number;
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  for (let by = 0; by < ph; by++) {
    for (let bx = 0; bx < pw; bx++) {
      const y = at(comps[0] as Component, bx, by);
      if (comps.length === 1) {
        row[bx * 3] = row[bx * 3 + 1] = row[bx * 3 + 2] = y;
        continue;
      }
      const cb = at(comps[1] as Component, bx, by) - 128;
      const cr = at(comps[2] as Component, bx, by) - 128;
      row[bx * 3] = clamp(y + 1.402 * cr);
      row[bx * 3 + 1] = clamp(y - 0.344136 * cb - 0.714136 * cr);
      row[bx * 3 + 2] = clamp(y + 1.772 * cb);
    }
    shrink.row(by, row);
  }
  return shrink.done();
}

/** Reads one scan's entropy-coded data into the components' DC grids; returns the position after it. */
function scan(
  buf: Buffer,
  start: number,
  inScan: Component[],
  f: { width: number; height: number; hmax: number; vmax: number; restart: number; q0: Map<number, number> },
): number {
  let pos = start;
  let bits = 0;
  let nbits = 0;
  let atMarker = false;
  const bit = (): number => {
    if (nbits === 0) {
      let b = 0;
      if (!atMarker && pos < buf.length) {
        b = buf[pos] as number;
        if (b === 0xff) {
          const next = buf[pos + 1];
          if (next === 0x00) pos += 2;
          else {
            atMarker = true;
            b = 0;
          }
        } else pos++;
      }
      bits = b;
      nbits = 8;
    }
    nbits--;
    return (bits >> nbits) & 1;
  };
  const receive = (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++) v = (v << 1) | bit();
    return v;
  };
  const decode = (h: Huffman): number => {
    let code = bit();
    for (let len = 1; len <= 16; len++) {
      if (code <= (h.maxCode[len] as number)) return h.symbols[(h.valPtr[len] as number) + code - (h.minCode[len] as number)] ?? 0;
      code = (code << 1) | bit();
    }
    throw new UnreadableImage('the JPEG data has a code no Huffman table defines');
  };
  const block = (c: Component, bx: number, by: number): void => {
    const t = decode(c.dc as Huffman);
    let diff = t === 0 ? 0 : receive(t);
    if (t > 0 && diff < 1 << (t - 1)) diff -= (1 << t) - 1;
    c.pred += diff;
    for (let k = 1; k < 64; ) {
      const rs = decode(c.ac as Huffman);
      const r = rs >> 4;
      const s = rs & 15;
      if (s === 0) {
        if (r !== 15) break;
        k += 16;
        continue;
      }
      k += r + 1;
      receive(s);
    }
    if (bx < c.bw && by < c.bh) {
      const v = (c.pred * (f.q0.get(c.tq) ?? 1)) / 8 + 128;
      c.grid[by * c.bw + bx] = Math.max(0, Math.min(255, Math.round(v)));
    }
  };
  const resync = (): void => {
    // Byte-align, step over the RSTn marker, reset the DC predictions.
    nbits = 0;
    atMarker = false;
    while (pos + 1 < buf.length && !(buf[pos] === 0xff && (buf[pos + 1] as number) >= 0xd0 && (buf[pos + 1] as number) <= 0xd7)) pos++;
    pos += 2;
    for (const c of inScan) c.pred = 0;
  };

  if (inScan.length === 1) {
    const c = inScan[0] as Component;
    const w = Math.ceil(Math.ceil((f.width * c.h) / f.hmax) / 8);
    const h = Math.ceil(Math.ceil((f.height * c.v) / f.vmax) / 8);
    let n = 0;
    for (let by = 0; by < h; by++) {
      for (let bx = 0; bx < w; bx++) {
        if (f.restart && n > 0 && n % f.restart === 0) resync();
        block(c, bx, by);
        n++;
      }
    }
  } else {
    const mcusX = Math.ceil(f.width / (8 * f.hmax));
    const mcusY = Math.ceil(f.height / (8 * f.vmax));
    let n = 0;
    for (let my = 0; my < mcusY; my++) {
      for (let mx = 0; mx < mcusX; mx++) {
        if (f.restart && n > 0 && n % f.restart === 0) resync();
        for (const c of inScan) {
          for (let v = 0; v < c.v; v++) for (let h = 0; h < c.h; h++) block(c, mx * c.h + h, my * c.v + v);
        }
        n++;
      }
    }
  }
  // The next marker after the scan's data.
  while (
    pos + 1 < buf.length &&
    !(buf[pos] === 0xff && buf[pos + 1] !== 0x00 && !((buf[pos + 1] as number) >= 0xd0 && (buf[pos + 1] as number) <= 0xd7))
  )
    pos++;
  return pos;
}
