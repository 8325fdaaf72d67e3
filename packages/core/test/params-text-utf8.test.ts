import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateParams } from '../src/index';
import { CATALOG_MODELS } from './support/models';

/**
 * Rule 16 (params/RULES.md): prompt text is UTF-8 (spec: prompt), and half a surrogate pair
 * alone, which JSON can escape ("\ud800") but UTF-8 cannot carry, is refused as the emulator
 * refuses it (422 INVALID_BODY on the field; emulator/test/params-differential checks the two
 * agree over HTTP). A whole pair is one character and is taken.
 */
const unit = fc.oneof(fc.integer({ min: 0xd7fe, max: 0xe001 }), fc.constantFrom(0x20, 0x61, 0x2013));
const text = fc.array(unit, { minLength: 1, maxLength: 8 }).map((units) => `a ${String.fromCharCode(...units)}`);
/** Well-formed: every high half followed by a low half, and no low half without one before it. */
const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe('prompt and negative_prompt must be UTF-8 text', () => {
  it('refused on the field exactly when a surrogate half stands alone', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CATALOG_MODELS), fc.constantFrom('prompt', 'negative_prompt'), text, (model, field, value) => {
        const issues = validateParams(model, { prompt: 'a fox', [field]: value }).filter((i) => i.field === field);
        if (wellFormed(value)) expect(issues).toEqual([]);
        else expect(issues).toEqual([{ field, code: 'INVALID_VALUE', message: `${field} must be UTF-8` }]);
      }),
      { numRuns: 500 },
    );
  });

  it('the cases by name: a half alone anywhere is refused; a pair is not', () => {
    const [model] = CATALOG_MODELS;
    for (const bad of ['\ud800', 'a \udfff', '\ud83d fox', '\ude00\ud83d']) {
      expect(
        validateParams(model!, { prompt: bad }).map((i) => i.code),
        JSON.stringify(bad),
      ).toContain('INVALID_VALUE');
    }
    expect(validateParams(model!, { prompt: 'a fox \ud83d\ude00' })).toEqual([]);
  });
});
