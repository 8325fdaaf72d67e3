import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateParams } from '../src/index';
import type { Model } from '../src/types';
import { effectiveLimits } from '../src/wire';
import { imageFast, textWriter } from './support/models';

const fields = (model: Model, params: object) => validateParams(model, params).map((issue) => issue.field);

// A model entry with arbitrary (sometimes absent, sometimes malformed) limits in its list.
const limitish = fc.oneof(fc.constant(undefined), fc.integer({ min: -2, max: 3000 }), fc.constant('4'), fc.constant(null));
const entry = fc
  .record({
    promptMaxChars: limitish,
    maxLength: limitish,
    resultsMin: limitish,
    resultsMax: limitish,
    refsMin: limitish,
    refsMax: limitish,
  })
  .map(({ promptMaxChars, maxLength, resultsMin, resultsMax, refsMin, refsMax }) => {
    const model = structuredClone(imageFast) as Model & Record<string, unknown>;
    model.prompt_max_chars = promptMaxChars as number;
    model.params = {
      ...model.params,
      prompt: { type: 'string', required: false, max_length: maxLength as number },
      number_results: { type: 'number', required: false, min: resultsMin as number, max: resultsMax as number },
      reference_images: { type: 'string[]', required: false, min: refsMin as number, max: refsMax as number },
    };
    return model as Model;
  });

// Both read the formulas of src/params/limit-rules.ts; this holds the two readers to each other.
describe('effectiveLimits agrees with validateParams', () => {
  it('on the prompt length, number_results and reference_images count of any list entry', () => {
    fc.assert(
      fc.property(entry, (model) => {
        const { promptMax, numberResults, referenceImages } = effectiveLimits(model);
        const base = { model: model.slug };
        if (promptMax >= 0) expect(fields(model, { ...base, prompt: 'p'.repeat(promptMax) })).not.toContain('prompt');
        expect(fields(model, { ...base, prompt: 'p'.repeat(Math.max(0, promptMax + 1)) })).toContain('prompt');
        if (numberResults.min <= numberResults.max) {
          expect(fields(model, { ...base, number_results: numberResults.max })).not.toContain('number_results');
          expect(fields(model, { ...base, number_results: numberResults.min })).not.toContain('number_results');
        }
        expect(fields(model, { ...base, number_results: numberResults.max + 1 })).toContain('number_results');
        const refs = (n: number) => Array.from({ length: n }, (_, i) => `https://media.example/${i}.png`);
        if (referenceImages.min <= referenceImages.max && referenceImages.max >= 0) {
          expect(fields(model, { ...base, reference_images: refs(referenceImages.max) })).not.toContain('reference_images');
        }
        if (referenceImages.max >= -1) {
          expect(fields(model, { ...base, reference_images: refs(referenceImages.max + 1) })).toContain('reference_images');
        }
        // Never a count below zero or one: a malformed min reads as the contract's floor.
        expect(referenceImages.min).toBeGreaterThanOrEqual(0);
        expect(numberResults.min).toBeGreaterThanOrEqual(1);
        if (referenceImages.min > 0) {
          expect(fields(model, { ...base, reference_images: refs(referenceImages.min - 1) })).toContain('reference_images');
        }
        expect(fields(model, { ...base, number_results: numberResults.min - 1 })).toContain('number_results');
      }),
      { numRuns: 300 },
    );
  });

  it('a model whose list has no number_results takes one result (the CLI once allowed four)', () => {
    expect(effectiveLimits(textWriter).numberResults).toEqual({ min: 1, max: 1 });
    expect(fields(textWriter, { model: textWriter.slug, prompt: 'x', number_results: 2 })).toContain('number_results');
  });
});
