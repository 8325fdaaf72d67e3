import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emu, emulator, KEY } from './helpers.js';

/** Byte sequences that are not UTF-8: a lone continuation byte, an overlong form, a byte no UTF-8 has, a cut-off sequence, a surrogate. */
const notUtf8 = fc.oneof(
  fc.integer({ min: 0x80, max: 0xbf }).map((b) => [b]),
  fc.tuple(fc.constantFrom(0xc0, 0xc1), fc.integer({ min: 0x80, max: 0xbf })).map((t) => [...t]),
  fc.integer({ min: 0xf5, max: 0xff }).map((b) => [b]),
  fc.constant([0xe2, 0x82] as number[]),
  fc.tuple(fc.integer({ min: 0xa0, max: 0xbf }), fc.integer({ min: 0x80, max: 0xbf })).map(([a, b]) => [0xed, a, b]),
);

const body = (bad: number[], where: 'prompt' | 'key') =>
  Buffer.concat([
    Buffer.from(where === 'key' ? '{"model":"image-fast","prompt":"a fox","x' : '{"model":"image-fast","prompt":"a '),
    Buffer.from(bad),
    Buffer.from(where === 'key' ? '":1,"estimate":true}' : ' fox","estimate":true}'),
  ]);

let emu: Emu;
beforeAll(async () => {
  emu = await emulator({ timeScale: 0.001, accounts: [{ id: 'acct_utf8', tier: 'ultimate', balance: 50_000, keys: [{ key: KEY }] }] });
});
afterAll(() => emu.close());

describe('a JSON body that is not UTF-8 is not JSON: 422 INVALID_BODY', () => {
  it('the same body with valid text is a quote (the control)', async () => {
    const res = await emu.call('POST', '/api/v1/generate', { body: '{"model":"image-fast","prompt":"a – fox","estimate":true}' });
    expect(res.status).toBe(200);
  });

  it('a leading byte-order mark is ignored (RFC 8259 allows it), as core reads it', async () => {
    const res = await fetch(`${emu.url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"model":"image-fast","prompt":"a fox","estimate":true}')]),
    });
    expect(res.status).toBe(200);
  });

  it('any invalid byte sequence, in a value or a key, is refused as unparseable', async () => {
    await fc.assert(
      fc.asyncProperty(notUtf8, fc.constantFrom('prompt' as const, 'key' as const), async (bad, where) => {
        const res = await fetch(`${emu.url}/api/v1/generate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: body(bad, where),
        });
        const answer = (await res.json()) as { error: string; details?: { field?: string } };
        expect({ status: res.status, error: answer.error, field: answer.details?.field }).toEqual({
          status: 422,
          error: 'INVALID_BODY',
          field: 'body',
        });
      }),
      { numRuns: 120 },
    );
  });
});
