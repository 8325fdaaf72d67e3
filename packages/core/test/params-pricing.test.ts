import { describe, expect, it } from 'vitest';
import { creditsForQuality, creditsForReferences, quotePrice } from '../src/index';
import { ENHANCE_CREDITS } from '../src/wire';
import { audioVoiceUnpriced, imageFast, imagePro, videoStandard } from './support/models';

describe('pricing helpers', () => {
  it('quotes no price for a count the service refuses or a runaway list price (found by the hostile-params property)', () => {
    expect(quotePrice(imageFast, { number_results: 4 }).credits).toBe(16);
    expect(quotePrice(imageFast, { number_results: 5 }).credits).toBeUndefined();
    expect(quotePrice(imageFast, { number_results: 4.49423283715579e307 }).credits).toBeUndefined();
    expect(quotePrice({ ...imageFast, credits_from: 1e308 }, { number_results: 4 })).toMatchObject({
      credits: undefined,
      total: undefined,
    });
  });

  it('reads credits_by_quality (default tier when none given) and credits_by_references', () => {
    expect(creditsForQuality(imagePro)).toBe(10);
    expect(creditsForQuality(imagePro, 'ultra')).toBe(40);
    expect(creditsForQuality(imagePro, 'HIGH')).toBe(20);
    expect(creditsForQuality(imageFast, 'high')).toBeUndefined();
    expect(creditsForReferences(imagePro, 2)).toBe(6);
    expect(creditsForReferences(imagePro, 5)).toBeUndefined();
  });

  it('quotes quality + references, times number_results, plus the flat enhance 20', () => {
    expect(quotePrice(imagePro, { quality: 'high', reference_images: ['a', 'b'], number_results: 2 })).toEqual({
      credits: 52,
      enhanceCredits: 0,
      total: 52,
      exact: true,
    });
    expect(quotePrice(imageFast, { number_results: 3, enhance: true })).toEqual({
      credits: 12,
      enhanceCredits: ENHANCE_CREDITS,
      total: 32,
      exact: true,
    });
    expect(ENHANCE_CREDITS).toBe(20);
  });

  it('uses credits_from for the default request and says when params make it approximate', () => {
    expect(quotePrice(videoStandard, {})).toMatchObject({ credits: 60, exact: true });
    expect(quotePrice(videoStandard, { duration: 5 })).toMatchObject({ credits: 60, exact: true });
    expect(quotePrice(videoStandard, { duration: 10, enhance: true })).toMatchObject({ credits: 60, total: 80, exact: false });
  });

  it('gives undefined when the entry carries no price (pricing lookup failed)', () => {
    expect(quotePrice(audioVoiceUnpriced, {})).toEqual({ credits: undefined, enhanceCredits: 0, total: undefined, exact: true });
  });
});
