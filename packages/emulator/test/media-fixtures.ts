import { crc32, deflateSync } from 'node:zlib';

/** Test inputs made here, so no binary fixture is checked in: truecolour PNGs and baseline JPEGs. */

type Rgb = [number, number, number];

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG of `colour(x, y)`: truecolour (type 2) or with alpha (type 6), each row with a filter
 * taken in turn from None, Sub, Up, Average, Paeth, so the decoder meets all five.
 */
export function rgbPng(width: number, height: number, colour: (x: number, y: number) => Rgb, alpha = false): Buffer {
  const bpp = alpha ? 4 : 3;
  const stride = width * bpp;
  const raw = Buffer.alloc((stride + 1) * height);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(stride);
    for (let x = 0; x < width; x++) {
      const [r, g, b] = colour(x, y);
      row.set(alpha ? [r, g, b, 255] : [r, g, b], x * bpp);
    }
    const filter = y % 5;
    const o = y * (stride + 1);
    raw[o] = filter;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? (row[i - bpp] as number) : 0;
      const up = prev[i] as number;
      const c = i >= bpp ? (prev[i - bpp] as number) : 0;
      const p = a + up - c;
      const pred =
        filter === 0
          ? 0
          : filter === 1
            ? a
            : filter === 2
              ? up
              : filter === 3
                ? (a + up) >> 1
                : Math.abs(p - a) <= Math.abs(p - up) && Math.abs(p - a) <= Math.abs(p - c)
                  ? a
                  : Math.abs(p - up) <= Math.abs(p - c)
                    ? up
                    : c;
      raw[o + 1 + i] = ((row[i] as number) - pred) & 0xff;
    }
    prev = row;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = alpha ? 6 : 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/**
 * A baseline JPEG (SOF0, 4:4:4, one interleaved scan) whose every 8x8 block is one flat colour
 * `colour(bx, by)`: only DC coefficients, with small Huffman tables of its own (DC categories
 * 0-11 as 4-bit codes, AC end-of-block as the 1-bit code 0) and a quantiser of 1.
 */
export function flatJpeg(width: number, height: number, colour: (bx: number, by: number) => Rgb, { restart = 0 } = {}): Buffer {
  const out: number[] = [];
  const u16 = (v: number) => [(v >> 8) & 0xff, v & 0xff];
  const segment = (marker: number, body: number[]) => out.push(0xff, marker, ...u16(body.length + 2), ...body);
  out.push(0xff, 0xd8);
  segment(0xdb, [0x00, ...new Array(64).fill(1)]);
  segment(0xc0, [8, ...u16(height), ...u16(width), 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]);
  const dcCounts = new Array(16).fill(0);
  dcCounts[3] = 12;
  segment(0xc4, [0x00, ...dcCounts, ...Array.from({ length: 12 }, (_, i) => i)]);
  const acCounts = new Array(16).fill(0);
  acCounts[0] = 1;
  segment(0xc4, [0x10, ...acCounts, 0x00]);
  if (restart) segment(0xdd, u16(restart));
  segment(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]);

  let acc = 0;
  let n = 0;
  const data: number[] = [];
  const put = (value: number, bits: number) => {
    for (let i = bits - 1; i >= 0; i--) {
      acc = (acc << 1) | ((value >> i) & 1);
      if (++n === 8) {
        data.push(acc);
        if (acc === 0xff) data.push(0x00);
        acc = 0;
        n = 0;
      }
    }
  };
  const flush = () => {
    if (n > 0) put(0xff, 8 - n);
  };
  const pred = [0, 0, 0];
  const bw = Math.ceil(width / 8);
  const bh = Math.ceil(height / 8);
  let mcu = 0;
  let rst = 0;
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      if (restart && mcu > 0 && mcu % restart === 0) {
        flush();
        data.push(0xff, 0xd0 + (rst++ % 8));
        pred.fill(0);
      }
      const [r, g, b] = colour(bx, by);
      const ycc = [
        0.299 * r + 0.587 * g + 0.114 * b,
        128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
        128 + 0.5 * r - 0.418688 * g - 0.081312 * b,
      ];
      ycc.forEach((v, c) => {
        const dc = Math.round((v - 128) * 8);
        const diff = dc - (pred[c] as number);
        pred[c] = dc;
        const size = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
        put(size, 4);
        if (size > 0) put(diff < 0 ? diff - 1 + (1 << size) : diff, size);
        put(0, 1); // end of block
      });
      mcu++;
    }
  }
  flush();
  out.push(...data, 0xff, 0xd9);
  return Buffer.from(out);
}

/** A WAV header and a little silence: an audio file, not an image. */
export function tinyWav(): Buffer {
  const b = Buffer.alloc(44 + 16);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + 16, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(16, 40);
  return b;
}

/** A WebP container header over noise: sniffed as WebP, never decoded by the emulator. */
export function fakeWebp(): Buffer {
  const body = Buffer.alloc(2000);
  for (let i = 0; i < body.length; i++) body[i] = (i * 73 + 11) & 0xff;
  return Buffer.concat([Buffer.from('RIFF'), Buffer.from([0xd8, 0x07, 0, 0]), Buffer.from('WEBPVP8 '), body]);
}
