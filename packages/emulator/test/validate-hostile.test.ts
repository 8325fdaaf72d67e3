import { SUBMIT_FIELDS } from '@mediagen/core/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entries } from '../src/catalog.js';
import { checkShape, normalize } from '../src/validate.js';

/**
 * The emulator's validator on arbitrary bodies, every catalog entry: it answers a 4xx API error
 * or normalised params, never another throw (a TypeError here would be a 500 on the wire).
 */
const value = fc.oneof(
  fc.anything({ maxDepth: 2, withNullPrototype: true }),
  fc.constantFrom('https://example.com/a.png', '1024x1024', '21:9', '2k', 5, 10, true, [], ['https://example.com/r.png']),
);
const body = fc.dictionary(fc.oneof(fc.constantFrom(...SUBMIT_FIELDS), fc.string({ maxLength: 6 })), value, { maxKeys: 8 });

describe('emulator validator on hostile bodies', () => {
  it('a 4xx API error or params, on every catalog model', () => {
    fc.assert(
      fc.property(fc.constantFrom(...entries), body, (entry, b) => {
        const withModel = { ...b, model: entry.model.slug };
        try {
          checkShape(withModel);
          const p = normalize(withModel, entry, { ownCompleted: () => false });
          expect(Number.isInteger(p.number_results)).toBe(true);
        } catch (e) {
          // The emulator's API error (status + code), whatever its class is named.
          const { status, code } = e as { status?: unknown; code?: unknown };
          expect(typeof code).toBe('string');
          expect(status).toBeGreaterThanOrEqual(400);
          expect(status).toBeLessThan(500);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
