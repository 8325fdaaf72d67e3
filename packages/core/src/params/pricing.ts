import type { Model } from '../types';

/** The optional `enhance` pass: a flat 20 credits, billed apart from `credits_estimate`. */
export const ENHANCE_CREDITS = 20;

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

/** Price of one quality tier (`credits_by_quality`), matching case like the list does. */
export function creditsForQuality(model: Model, quality?: string): number | undefined {
  const table = model.credits_by_quality;
  const tier = quality ?? (model.params?.quality?.default as string | undefined);
  if (!table || tier === undefined) return undefined;
  return table[tier] ?? table[tier.toLowerCase()];
}

/** Extra credits for a number of reference images (`credits_by_references`, keyed by count). */
export function creditsForReferences(model: Model, count: number): number | undefined {
  return model.credits_by_references?.[String(count)];
}

/**
 * A price from the model entry alone, so an app can show it before asking `estimate`:
 * the quality tier (or `credits_from`, the account's live price of the default request),
 * plus reference images, times `number_results`, plus enhance.
 */
export function quotePrice(model: Model, params: Record<string, unknown> = {}): PriceQuote {
  const specs = model.params ?? {};
  const defaultResults = Number(specs.number_results?.default ?? 1) || 1;
  const results = typeof params.number_results === 'number' ? params.number_results : defaultResults;
  const refs = Array.isArray(params.reference_images) ? params.reference_images.length : 0;
  const quality = typeof params.quality === 'string' ? params.quality : undefined;
  let perResult = model.credits_by_quality ? creditsForQuality(model, quality) : model.credits_from === undefined ? undefined : model.credits_from / defaultResults;
  if (perResult !== undefined && model.credits_by_references) {
    const extra = creditsForReferences(model, refs);
    perResult = extra === undefined ? undefined : perResult + extra;
  }
  const credits = perResult === undefined ? undefined : Math.round(perResult * results);
  const enhanceCredits = params.enhance === true ? ENHANCE_CREDITS : 0;
  const exact = !(['aspect_ratio', 'size', 'resolution', 'duration', 'audio'] as const).some(
    (k) => params[k] !== undefined && params[k] !== specs[k]?.default,
  );
  return { credits, enhanceCredits, total: credits === undefined ? undefined : credits + enhanceCredits, exact };
}
