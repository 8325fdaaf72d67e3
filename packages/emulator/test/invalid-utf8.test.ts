import { validateParams } from '@mediagen/core';
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

describe('text that JSON can escape but UTF-8 cannot carry: half a surrogate pair alone', () => {
  const quote = (prompt: string, field: 'prompt' | 'negative_prompt' = 'prompt') =>
    emu.call('POST', '/api/v1/generate', {
      // The escapes as a client's JSON.stringify writes them: the body's bytes are plain ASCII.
      body: JSON.stringify({ model: 'image-fast', prompt: 'a fox', [field]: prompt, estimate: true }),
    });

  it('refused: 422 INVALID_BODY naming the field, wherever the half stands; core refuses the same field', async () => {
    const model = (await emu.call('GET', '/api/v1/models')).body.models.find((m: { slug: string }) => m.slug === 'image-fast');
    for (const field of ['prompt', 'negative_prompt'] as const) {
      for (const text of ['\ud800', 'a \udfff fox', 'a fox \ud83d', '\ude00\ud83d', 'x\udbff']) {
        const res = await quote(text, field);
        expect(res.status, JSON.stringify(text)).toBe(422);
        expect(res.body).toMatchObject({ error: 'INVALID_BODY', details: { field } });
        expect(validateParams(model, { prompt: 'a fox', [field]: text }).map((i) => i.field)).toEqual([field]);
      }
    }
  });

  it('a whole pair (an emoji) is one character and is taken, by both', async () => {
    const model = (await emu.call('GET', '/api/v1/models')).body.models.find((m: { slug: string }) => m.slug === 'image-fast');
    expect((await quote('a fox \ud83d\ude00')).status).toBe(200);
    expect(validateParams(model, { prompt: 'a fox \ud83d\ude00' })).toEqual([]);
  });
});
