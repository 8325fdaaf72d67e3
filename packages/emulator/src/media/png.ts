import { deflateSync } from 'node:zlib';
import { makeScene } from './scene.js';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Uint8Array, start = 0, end = buf.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = (CRC_TABLE[(c ^ (buf[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out, 4, 8 + data.length), 8 + data.length);
  return out;
}

/** An indexed-colour PNG. Rows use the Up filter: landscape rows repeat, so they deflate to almost nothing. */
export function encodePng(width: number, height: number, palette: Uint8Array, pixels: Uint8Array): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 3; // indexed colour
  const stride = width + 1;
  const raw = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const o = y * stride;
    const p = y * width;
    if (y === 0) {
      raw[o] = 0;
      raw.set(pixels.subarray(0, width), o + 1);
      continue;
    }
    raw[o] = 2;
    for (let x = 0; x < width; x++) raw[o + 1 + x] = ((pixels[p + x] as number) - (pixels[p - width + x] as number)) & 0xff;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('PLTE', palette),
    chunk('IDAT', deflateSync(raw, { level: 3 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

export function renderPng(width: number, height: number, seed: number): Buffer {
  const scene = makeScene(seed);
  return encodePng(width, height, scene.palette, scene.render(width, height, 0));
}
