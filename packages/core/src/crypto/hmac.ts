/**
 * HMAC-SHA256 without a static `node:` import, so core bundles for any runtime.
 * Node (20.16+) is reached through `process.getBuiltinModule`: there one 1 KB HMAC costs
 * about 8 µs against about 82 µs through Web Crypto, even with the key cached. Everywhere
 * else (edge runtimes, Deno, browsers) Web Crypto does the work, with each imported key
 * cached per secret because `importKey` costs more than the HMAC itself.
 */

interface NodeCrypto {
  createHmac(algorithm: 'sha256', key: string): { update(data: Uint8Array): { digest(): Uint8Array } };
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
}

export type HmacBackend = 'node' | 'web';

let forced: HmacBackend | undefined;
let node: NodeCrypto | null | undefined;
const keys = new Map<string, Promise<CryptoKey>>();
/** A handful of endpoints per account: a small cap only guards against unbounded growth. */
const MAX_CACHED_KEYS = 32;

/** Forces one backend (tests compare both), or `undefined` for the automatic choice. */
export function setHmacBackend(backend: HmacBackend | undefined): void {
  forced = backend;
}

/** The backend the next HMAC will use. */
export function hmacBackend(): HmacBackend {
  return forced ?? (nodeCrypto() ? 'node' : 'web');
}

function nodeCrypto(): NodeCrypto | null {
  if (node === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    try {
      node = (proc?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined) ?? null;
    } catch {
      node = null;
    }
  }
  return node;
}

const encoder = new TextEncoder();

/** The raw 32-byte HMAC-SHA256 of `data` keyed with the UTF-8 bytes of `secret`. */
export async function hmacSha256(secret: string, data: Uint8Array): Promise<Uint8Array> {
  const backend = hmacBackend();
  const native = backend === 'node' ? nodeCrypto() : null;
  if (native) return native.createHmac('sha256', secret).update(data).digest();
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    keys.set(secret, key);
    // A failed import must not stay cached.
    key.catch(() => keys.delete(secret));
  }
  return new Uint8Array(await crypto.subtle.sign('HMAC', await key, data as Uint8Array<ArrayBuffer>));
}

/** Lowercase hex, as the signature header carries it. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Compares two digests in time that depends only on their lengths (public: 32 bytes), never
 * on where they first differ: every byte is visited and differences are OR-ed together.
 * Node's native `timingSafeEqual` does the same when the Node backend is in use.
 */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  const native = hmacBackend() === 'node' ? nodeCrypto() : null;
  if (native && a.length === b.length) return native.timingSafeEqual(a, b);
  return timingSafeEqual(a, b);
}

/** Constant-time byte comparison with no early exit (the length difference is folded in). */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  // Past the end of the shorter array a read is undefined, and `| 0` makes it 0: no branch.
  for (let i = 0; i < length; i++) diff |= (a[i]! | 0) ^ (b[i]! | 0);
  return diff === 0;
}
