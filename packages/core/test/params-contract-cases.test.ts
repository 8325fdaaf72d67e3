import { describe, expect, it } from 'vitest';
import { validateParams } from '../src/index';
import { imageFast, imagePro, textWriter } from './support/models';

/**
 * The four disputed cases of issue 9 §2, each decided in `src/params/RULES.md` and checked here
 * against catalog models. Before the fix core refused case 1 and took cases 2 to 4; the emulator
 * (the service's stand-in) does the opposite, and `packages/emulator/test/params-differential.test.ts`
 * proves the two agree on random params.
 */
const fields = (model: typeof imageFast, params: Record<string, unknown>) =>
  validateParams(model, { model: model.slug, ...params }).map((i) => `${i.field}:${i.code}`);

describe('the disputed params rules (RULES.md)', () => {
  it('rule 1: text-writer takes number_results 1 (no number_results in its list), and nothing above', () => {
    expect(fields(textWriter, { prompt: 'tagline', number_results: 1 })).toEqual([]);
    expect(fields(textWriter, { prompt: 'tagline', number_results: 2 })).toEqual(['number_results:INVALID_NUMBER_RESULTS']);
  });

  it("rule 2: quality 'HIGH' is not the listed 'high'", () => {
    expect(fields(imagePro, { prompt: 'a', quality: 'HIGH' })).toEqual(['quality:INVALID_VALUE']);
    expect(fields(imagePro, { prompt: 'a', quality: 'high' })).toEqual([]);
  });

  it('rule 3: seed -1 is out of the unsigned 32-bit range', () => {
    expect(fields(imageFast, { prompt: 'a', seed: -1 })).toEqual(['seed:OUT_OF_RANGE']);
    expect(fields(imageFast, { prompt: 'a', seed: 0 })).toEqual([]);
    expect(fields(imageFast, { prompt: 'a', seed: 4_294_967_295 })).toEqual([]);
  });

  it("rule 4: image-pro has no 2k size at quality 'standard' (values_by_quality and the size tags)", () => {
    expect(fields(imagePro, { prompt: 'a', quality: 'standard', resolution: '2k' })).toEqual(['resolution:OPTION_NOT_AVAILABLE']);
    expect(fields(imagePro, { prompt: 'a', quality: 'high', resolution: '2k' })).toEqual([]);
    // A size of another tier than the resolution names.
    expect(fields(imagePro, { prompt: 'a', quality: 'high', resolution: '2k', size: '1024x1024' })).toEqual([
      'resolution:OPTION_NOT_AVAILABLE',
    ]);
  });
});
