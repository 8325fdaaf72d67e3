import { inflateSync } from 'node:zlib';

/** Minimal PNG reader for the emulator's own files: dimensions, palette size, pixel indices. */
export function readPng(buf: Buffer): { width: number; height: number; colours: number; palette: Uint8Array; pixels: Uint8Array } {
  if (buf.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let colours = 0;
  let palette = new Uint8Array(0);
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
    } else if (type === 'PLTE') {
      colours = len / 3;
      palette = Uint8Array.from(data);
    } else if (type === 'IDAT') idat.push(data);
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
  return { width, height, colours, palette, pixels };
}

/** Minimal WebM (EBML) reader: the doc type, codec, pixel size, duration and each frame's bytes. */
export function readWebm(buf: Buffer): {
  docType: string;
  codec: string;
  width: number;
  height: number;
  durationMs: number;
  frames: Buffer[];
} {
  const out = { docType: '', codec: '', width: 0, height: 0, durationMs: 0, frames: [] as Buffer[] };
  /** EBML variable-length integer at `at`: its value (`keepMarker` for ids) and length. */
  const vint = (at: number, keepMarker: boolean): [number, number] => {
    const first = buf[at] as number;
    let length = 1;
    while (length <= 8 && !(first & (0x80 >> (length - 1)))) length++;
    let value = keepMarker ? first : first & (0xff >> length);
    for (let i = 1; i < length; i++) value = value * 256 + (buf[at + i] as number);
    return [value, length];
  };
  const MASTERS = new Set([0x1a45dfa3, 0x18538067, 0x1549a966, 0x1654ae6b, 0xae, 0xe0, 0x1f43b675]);
  const walk = (from: number, to: number): void => {
    for (let at = from; at < to; ) {
      const [id, idLength] = vint(at, true);
      const [size, sizeLength] = vint(at + idLength, false);
      const body = at + idLength + sizeLength;
      const data = buf.subarray(body, body + size);
      if (MASTERS.has(id)) walk(body, body + size);
      else if (id === 0x4282) out.docType = data.toString('latin1');
      else if (id === 0x86) out.codec = data.toString('latin1');
      else if (id === 0xb0) out.width = data.readUIntBE(0, data.length);
      else if (id === 0xba) out.height = data.readUIntBE(0, data.length);
      else if (id === 0x4489) out.durationMs = data.readDoubleBE(0);
      else if (id === 0xa3) out.frames.push(data.subarray(4)); // SimpleBlock: track, timecode, flags, frame
      at = body + size;
    }
  };
  walk(0, buf.length);
  return out;
}
