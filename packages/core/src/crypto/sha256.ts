/**
 * SHA-256 fed a chunk at a time (Web Crypto only digests whole buffers, and an upload may be
 * 200 MB): Node's `createHash` where it exists (Node, Bun, Deno, Workers with `nodejs_compat`),
 * reached without a static `node:` import so core bundles for any runtime; else a small
 * FIPS 180-4 implementation in JavaScript.
 */
export interface Sha256 {
  update(chunk: Uint8Array): void;
  /** The digest as lowercase hex; the hasher is spent after it. */
  hex(): string;
}

interface NodeHash {
  update(data: Uint8Array): unknown;
  digest(encoding: 'hex'): string;
}

export function createSha256(): Sha256 {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  let native: NodeHash | undefined;
  try {
    native = (proc?.getBuiltinModule?.('node:crypto') as { createHash(a: 'sha256'): NodeHash } | undefined)?.createHash('sha256');
  } catch {
    native = undefined;
  }
  if (native) {
    const hash = native;
    return { update: (chunk) => void hash.update(chunk), hex: () => hash.digest('hex') };
  }
  return portableSha256();
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The JavaScript fallback; exported for the test that checks it against Node's. */
export function portableSha256(): Sha256 {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const block = new Uint8Array(64);
  let filled = 0;
  let length = 0;
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  const compress = (b: Uint8Array) => {
    for (let i = 0; i < 16; i++) w[i] = (b[i * 4]! << 24) | (b[i * 4 + 1]! << 16) | (b[i * 4 + 2]! << 8) | b[i * 4 + 3]!;
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      w[i] = w[i - 16]! + (rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)) + w[i - 7]! + (rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10));
    }
    let [a, b1, c, d, e, f, g, hh] = h as unknown as number[];
    for (let i = 0; i < 64; i++) {
      const t1 = (hh! + (rotr(e!, 6) ^ rotr(e!, 11) ^ rotr(e!, 25)) + ((e! & f!) ^ (~e! & g!)) + K[i]! + w[i]!) | 0;
      const t2 = ((rotr(a!, 2) ^ rotr(a!, 13) ^ rotr(a!, 22)) + ((a! & b1!) ^ (a! & c!) ^ (b1! & c!))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d! + t1) | 0;
      d = c;
      c = b1;
      b1 = a;
      a = (t1 + t2) | 0;
    }
    const next = [a, b1, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = h[i]! + next[i]!;
  };
  const update = (chunk: Uint8Array) => {
    length += chunk.length;
    for (let i = 0; i < chunk.length; ) {
      const take = Math.min(64 - filled, chunk.length - i);
      block.set(chunk.subarray(i, i + take), filled);
      filled += take;
      i += take;
      if (filled === 64) {
        compress(block);
        filled = 0;
      }
    }
  };
  return {
    update,
    hex() {
      const bits = length * 8;
      const tail = new Uint8Array(((filled + 8) >> 6) * 64 + 64 - filled);
      tail[0] = 0x80;
      const view = new DataView(tail.buffer);
      view.setUint32(tail.length - 8, Math.floor(bits / 2 ** 32));
      view.setUint32(tail.length - 4, bits >>> 0);
      update(tail);
      let hex = '';
      for (const word of h) hex += word.toString(16).padStart(8, '0');
      return hex;
    },
  };
}
