import { ENHANCE_CREDITS } from '../limits';
import type { Model } from '../types';

export interface PriceQuote {
  /** Credits for the request without enhance, or undefined when the model entry cannot tell. */
  credits: number | undefined;
  /** 20 when `enhance: true`, else 0. */
  enhanceCredits: number;
  /** `credits` + `enhanceCredits`, or undefined. */
  total: number | undefined;
  /**
   * False when params the list does not price (duration, resolution, size, …) differ from the
   * defaults: the figure is then the model's "from" price. `estimate` is always exact.
   */
  exact: boolean;
}

/** Price of one quality tier (`credits_by_quality`); the model's default tier when none is given. */
export function creditsForQuality(model: Model, quality?: string): number | undefined {
  const tier = quality ?? model.params?.quality?.default;
  return typeof tier === 'string' ? (model.credits_by_quality?.[tier] ?? model.credits_by_quality?.[tier.toLowerCase()]) : undefined;
}

/** Extra credits for a number of reference images (`credits_by_references`, keyed by count). */
export function creditsForReferences(model: Model, count: number): number | undefined {
  return model.credits_by_references?.[count];
}

/**
 * A price from the model entry alone, so an app can show it before asking `estimate`:
 * the quality tier (or `credits_from`, the account's live price of the default request),
 * plus reference images, times `number_results`, plus enhance.
 */
export function quotePrice(model: Model, params: Record<string, unknown> = {}): PriceQuote {
  const specs = model.params ?? {};
  const defaultResults = Number(specs.number_results?.default) || 1;
  const refs = params.reference_images;
  const perResult =
    Number(
      model.credits_by_quality
        ? creditsForQuality(model, params.quality as string | undefined)
        : Number(model.credits_from) / defaultResults,
    ) + Number(model.credits_by_references ? creditsForReferences(model, Array.isArray(refs) ? refs.length : 0) : 0);
  // NaN (a price the entry lacks) becomes undefined.
  const credits = perResult >= 0 ? Math.round(perResult * (Number(params.number_results) || defaultResults)) : undefined;
  const enhanceCredits = params.enhance === true ? ENHANCE_CREDITS : 0;
  return {
    credits,
    enhanceCredits,
    total: credits === undefined ? undefined : credits + enhanceCredits,
    // Params the list does not price, away from their defaults: the figure is a "from" price.
    exact: !['aspect_ratio', 'size', 'resolution', 'duration', 'audio'].some(
      (k) => params[k] !== undefined && params[k] !== specs[k as keyof typeof specs]?.default,
    ),
  };
}
