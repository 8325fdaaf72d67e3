import { createHmac as nodeHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHmac, timingSafeEqual, toHex } from '../src/crypto/hmac';

async function hexWith(backend: 'node' | 'web', secret: string, data: Uint8Array): Promise<string> {
  return toHex(await createHmac(backend).sign(secret, data));
}

describe('hmacSha256', () => {
  it('uses the Node builtin on Node 20.16+ and can be forced onto Web Crypto', () => {
    expect(createHmac().backend).toBe('node');
    expect(createHmac('web').backend).toBe('web');
  });

  it('matches a reference HMAC (RFC 4231 test case 2)', async () => {
    const data = new TextEncoder().encode('what do ya want for nothing?');
    const expected = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';
    expect(await hexWith('node', 'Jefe', data)).toBe(expected);
    expect(await hexWith('web', 'Jefe', data)).toBe(expected);
  });

  it('gives identical results on the Node and Web Crypto paths for any secret and bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, unit: 'grapheme' }), fc.uint8Array({ maxLength: 2048 }), async (secret, data) => {
        const node = await hexWith('node', secret, data);
        const web = await hexWith('web', secret, data);
        expect(web).toBe(node);
        expect(node).toBe(nodeHmac('sha256', secret).update(data).digest('hex'));
      }),
      { numRuns: 200 },
    );
  });

  it('reuses the cached key for a secret on the web path (same result twice)', async () => {
    const data = new Uint8Array([1, 2, 3]);
    expect(await hexWith('web', 's', data)).toBe(await hexWith('web', 's', data));
  });
});

describe('timingSafeEqual', () => {
  it('agrees with plain equality on arbitrary byte arrays', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }), (a, b) => {
        const same = a.length === b.length && a.every((x, i) => x === b[i]);
        expect(timingSafeEqual(a, b)).toBe(same);
        expect(timingSafeEqual(a, a.slice())).toBe(true);
      }),
    );
  });

  it('has no early exit: one return, after a loop that visits every byte', () => {
    const source = timingSafeEqual.toString();
    const body = source.slice(source.indexOf('{') + 1, source.lastIndexOf('}'));
    // Exactly one return, and it is the last statement.
    expect(body.match(/\breturn\b/g)).toHaveLength(1);
    expect(body.trim()).toMatch(/return diff === 0;?$/);
    // No break/continue, no short-circuiting or string comparison inside the loop.
    expect(body).not.toMatch(/\b(break|continue)\b/);
    const loop = body.slice(body.indexOf('for'), body.lastIndexOf('return'));
    expect(loop).not.toMatch(/&&|\|\||===|!==|==|!=|\bif\b|\?/);
    expect(loop).toMatch(/diff \|=/);
  });
});
