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

/** HMAC-SHA256 and digest comparison on one backend, with its own cache of imported keys. */
export interface Hmac {
  readonly backend: HmacBackend;
  /** The raw 32-byte HMAC-SHA256 of `data` keyed with the UTF-8 bytes of `secret`. */
  sign(secret: string, data: Uint8Array): Promise<Uint8Array>;
  /** Constant-time comparison of two 32-byte digests. */
  equal(a: Uint8Array, b: Uint8Array): boolean;
}

/** A handful of endpoints per account: a small cap only guards against unbounded growth. */
const MAX_CACHED_KEYS = 32;
/** One encoder for the webhook path (the verify bundle counts every byte). */
export const encoder = new TextEncoder();

/**
 * An HMAC on `backend` (default: Node's crypto where it exists, else Web Crypto). Whoever
 * makes it owns its key cache: a webhook handler keeps one for its life, so nothing is shared
 * across the process.
 */
export function createHmac(backend?: HmacBackend): Hmac {
  const native = backend === 'web' ? null : nodeCrypto();
  if (native) {
    return {
      backend: 'node',
      sign: async (secret, data) => native.createHmac('sha256', secret).update(data).digest(),
      // Both sides are always 32-byte digests here, as Node's comparison requires.
      equal: (a, b) => native.timingSafeEqual(a, b),
    };
  }
  const keys = new Map<string, Promise<CryptoKey>>();
  return {
    backend: 'web',
    async sign(secret, data) {
      let key = keys.get(secret);
      if (!key) {
        if (keys.size >= MAX_CACHED_KEYS) keys.clear();
        key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
        keys.set(secret, key);
        // A failed import must not stay cached.
        key.catch(() => keys.delete(secret));
      }
      return new Uint8Array(await crypto.subtle.sign('HMAC', await key, data as Uint8Array<ArrayBuffer>));
    },
    equal: timingSafeEqual,
  };
}

/** Node's crypto, reached without a static import (a lookup in Node's own module cache). */
function nodeCrypto(): NodeCrypto | null {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return (proc?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined) ?? null;
  } catch {
    return null;
  }
}

/** Lowercase hex, as the signature header carries it. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Constant-time byte comparison with no early exit (the length difference is folded in). */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  // Past the end of the shorter array a read is undefined, and `| 0` makes it 0: no branch.
  for (let i = 0; i < length; i++) diff |= (a[i]! | 0) ^ (b[i]! | 0);
  return diff === 0;
}
