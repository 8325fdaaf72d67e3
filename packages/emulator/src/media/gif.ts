import { makeScene } from './scene.js';

// Shared LZW table: entry = epoch * 4096 + code, so a dictionary reset is an epoch bump, not a 4 MB fill.
let table = new Int32Array(0);
let epoch = 0;

/** GIF LZW with 8-bit minimum code size, returned as data sub-blocks (each <= 255 bytes). */
function lzw(pixels: Uint8Array): Buffer {
  if (table.length === 0) table = new Int32Array(4096 * 256);
  const CLEAR = 256;
  const EOI = 257;
  const out: number[] = [];
  let bitBuf = 0;
  let bitLen = 0;
  let codeSize = 9;
  const emit = (code: number) => {
    bitBuf |= code << bitLen;
    bitLen += codeSize;
    while (bitLen >= 8) {
      out.push(bitBuf & 0xff);
      bitBuf >>>= 8;
      bitLen -= 8;
    }
  };
  const reset = () => {
    epoch++;
    if (epoch > 500_000) {
      table.fill(0);
      epoch = 1;
    }
    codeSize = 9;
  };
  reset();
  let next = 258;
  emit(CLEAR);
  let prefix = pixels[0] ?? 0;
  let tag = epoch * 4096;
  for (let i = 1; i < pixels.length; i++) {
    const k = pixels[i] as number;
    const slot = prefix * 256 + k;
    const v = table[slot] as number;
    if (v >= tag && v < tag + 4096) {
      prefix = v - tag;
      continue;
    }
    emit(prefix);
    if (next < 4096) {
      table[slot] = tag + next;
      next++;
      if (next > 1 << codeSize && codeSize < 12) codeSize++;
    } else {
      emit(CLEAR);
      reset();
      tag = epoch * 4096;
      next = 258;
    }
    prefix = k;
  }
  emit(prefix);
  emit(EOI);
  if (bitLen > 0) out.push(bitBuf & 0xff);
  const data = Buffer.from(out);
  const blocks: Buffer[] = [];
  for (let i = 0; i < data.length; i += 255) {
    const part = data.subarray(i, i + 255);
    blocks.push(Buffer.from([part.length]), part);
  }
  blocks.push(Buffer.from([0]));
  return Buffer.concat(blocks);
}

const u16 = (n: number): number[] => [n & 0xff, (n >> 8) & 0xff];

/** An endless-looping animated GIF of the landscape panning: `seconds` long at 4 frames per second. */
export function renderGif(width: number, height: number, seconds: number, seed: number): Buffer {
  const scene = makeScene(seed);
  const fps = 4;
  const frames = Math.max(2, Math.round(seconds * fps));
  const delay = Math.round(100 / fps);
  const parts: Buffer[] = [
    Buffer.from('GIF89a', 'latin1'),
    Buffer.from([...u16(width), ...u16(height), 0xf7, 0, 0]),
    Buffer.from(scene.palette),
    Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1'), 0x03, 0x01, 0, 0, 0]),
  ];
  for (let f = 0; f < frames; f++) {
    parts.push(Buffer.from([0x21, 0xf9, 0x04, 0x00, ...u16(delay), 0, 0]));
    parts.push(Buffer.from([0x2c, 0, 0, 0, 0, ...u16(width), ...u16(height), 0]));
    parts.push(Buffer.from([8]));
    parts.push(lzw(scene.render(width, height, f / fps)));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}
