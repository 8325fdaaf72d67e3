import { inflateSync } from 'node:zlib';

/** Minimal PNG reader for the emulator's own files: dimensions, palette size, pixel indices. */
export function readPng(buf: Buffer): { width: number; height: number; colours: number; pixels: Uint8Array } {
  if (buf.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let colours = 0;
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
    } else if (type === 'PLTE') colours = len / 3;
    else if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (width + 1)];
    for (let x = 0; x < width; x++) {
      const v = raw[y * (width + 1) + 1 + x] as number;
      const up = y > 0 ? (pixels[(y - 1) * width + x] as number) : 0;
      pixels[y * width + x] = f === 2 ? (v + up) & 0xff : v;
    }
  }
  return { width, height, colours, pixels };
}

/** Minimal GIF reader: dimensions, frame count, and the decoded (LZW) first frame. */
export function readGif(buf: Buffer): { width: number; height: number; frames: Uint8Array[]; loops: boolean } {
  if (buf.toString('latin1', 0, 6) !== 'GIF89a') throw new Error('not a GIF');
  const width = buf.readUInt16LE(6);
  const height = buf.readUInt16LE(8);
  const flags = buf[10] as number;
  let pos = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  const frames: Uint8Array[] = [];
  let loops = false;
  const subBlocks = (): Buffer => {
    const parts: Buffer[] = [];
    for (;;) {
      const n = buf[pos++] as number;
      if (n === 0) break;
      parts.push(buf.subarray(pos, pos + n));
      pos += n;
    }
    return Buffer.concat(parts);
  };
  while (pos < buf.length) {
    const b = buf[pos++];
    if (b === 0x3b) break;
    if (b === 0x21) {
      const label = buf[pos++];
      const data = subBlocks();
      if (label === 0xff && data.toString('latin1', 0, 11) === 'NETSCAPE2.0') loops = true;
    } else if (b === 0x2c) {
      const w = buf.readUInt16LE(pos + 4);
      const h = buf.readUInt16LE(pos + 6);
      pos += 9;
      const min = buf[pos++] as number;
      frames.push(lzwDecode(subBlocks(), min, w * h));
    } else throw new Error(`bad block ${b}`);
  }
  return { width, height, frames, loops };
}

function lzwDecode(data: Buffer, min: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  const clear = 1 << min;
  const eoi = clear + 1;
  let codeSize = min + 1;
  let dict: number[][] = [];
  const resetDict = () => {
    dict = [];
    for (let i = 0; i < clear; i++) dict[i] = [i];
    dict[clear] = [];
    dict[eoi] = [];
    codeSize = min + 1;
  };
  resetDict();
  let bitPos = 0;
  let o = 0;
  let prev: number[] | null = null;
  const read = (): number => {
    let v = 0;
    for (let i = 0; i < codeSize; i++) {
      const bit = ((data[bitPos >> 3] as number) >> (bitPos & 7)) & 1;
      v |= bit << i;
      bitPos++;
    }
    return v;
  };
  while (bitPos + codeSize <= data.length * 8) {
    const code = read();
    if (code === clear) {
      resetDict();
      prev = null;
      continue;
    }
    if (code === eoi) break;
    let entry: number[];
    if (code < dict.length) entry = dict[code] as number[];
    else if (prev) entry = [...prev, prev[0] as number];
    else throw new Error('bad LZW code');
    for (const px of entry) out[o++] = px;
    if (prev) dict.push([...prev, entry[0] as number]);
    prev = entry;
    if (dict.length === 1 << codeSize && codeSize < 12) codeSize++;
  }
  if (o !== size) throw new Error(`decoded ${o} of ${size} pixels`);
  return out;
}
