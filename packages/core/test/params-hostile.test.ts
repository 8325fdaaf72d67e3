import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MediaGenError, type Model, quotePrice, validateParams } from '../src/index';
import { PARAM_KEYS, SUBMIT_FIELDS } from '../src/wire';
import { CATALOG_MODELS, imagePro } from './support/models';

/**
 * Issue 10 item 8 and "prove the classes": validateParams and quotePrice on arbitrary params,
 * against every catalog model and against malformed entries, return (or throw a typed SDK
 * error), never a TypeError. Bounded: a few hundred runs each.
 */

/** Any JSON-ish value, including the shapes a careless app or a broken list produces. */
const junk = fc.oneof(
  fc.anything({ maxDepth: 2, withNullPrototype: true, withBoxedValues: true, withSparseArray: true }),
  fc.constantFrom({}, [], null, undefined, Number.NaN, Infinity, -0, '4', '1e3', Object.create(null), [1, 'x'], { length: 3 }),
);

/** Params: the contract's keys with junk values, plus junk keys. */
const params = fc.dictionary(
  fc.oneof(
    // Every key the contract names (schema params and submit fields), then junk keys.
    fc.constantFrom(...new Set<string>([...PARAM_KEYS, ...SUBMIT_FIELDS])),
    fc.string({ maxLength: 8 }),
  ),
  junk,
  { maxKeys: 8 },
);

/** A catalog model with one part of its entry replaced by junk, at any depth of `params`. */
const malformed = fc
  .tuple(
    fc.constantFrom(...CATALOG_MODELS),
    fc.array(fc.tuple(fc.constantFrom('params', 'spec', 'field'), fc.string({ maxLength: 12 }), junk), { maxLength: 4 }),
  )
  .map(([model, edits]) => {
    const m = structuredClone(model) as unknown as Record<string, unknown>;
    const keys = Object.keys((m.params as object) ?? {});
    for (const [where, key, value] of edits) {
      if (where === 'params') m.params = value;
      else if (where === 'field') m[key || 'credits_by_quality'] = value;
      else {
        const specs = m.params as Record<string, Record<string, unknown>> | null;
        const spec = specs && typeof specs === 'object' ? specs[keys[key.length % Math.max(1, keys.length)] ?? 'size'] : undefined;
        if (spec && typeof spec === 'object')
          spec[['values', 'values_by_quality', 'options', 'max', 'min', 'default', 'type', 'required'][key.length % 8]!] = value;
      }
    }
    return m as unknown as Model;
  });

const onlyTyped = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MediaGenError);
  }
};

describe('validateParams and quotePrice on hostile input', () => {
  it('every catalog model, arbitrary params: issues or a quote, never a throw', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CATALOG_MODELS), params, (model, p) => {
        expect(Array.isArray(validateParams(model, p))).toBe(true);
        const q = quotePrice(model, p);
        expect(q.credits === undefined || Number.isInteger(q.credits)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('malformed model entries (non-array values_by_quality, params null, numbers as strings): never a TypeError', () => {
    fc.assert(
      fc.property(malformed, params, (model, p) => {
        onlyTyped(() => validateParams(model, p));
        onlyTyped(() => quotePrice(model, p));
      }),
      { numRuns: 400 },
    );
  });

  it('the reported cases', () => {
    expect(() => quotePrice(imagePro, { number_results: {} })).not.toThrow();
    expect(quotePrice(imagePro, { number_results: {} }).credits).toBe(10);
    expect(quotePrice(imagePro, { number_results: Object.create(null), quality: Object.create(null) }).credits).toBe(10);
    const broken = structuredClone(imagePro);
    (broken.params.size as unknown as Record<string, unknown>).values_by_quality = { standard: 'x' };
    expect(validateParams(broken, { prompt: 'a', size: '1024x1024' })).toEqual([]);
    expect(validateParams({ ...imagePro, params: null } as unknown as Model, { prompt: 'a' })).toEqual([]);
    expect(validateParams(null as unknown as Model, null as unknown as object)).toEqual([]);
    expect(quotePrice(null as unknown as Model, null as unknown as Record<string, unknown>).credits).toBeUndefined();
  });
});
