import { ENHANCE_CREDITS, NUMBER_RESULTS_MAX } from '../limits';
import type { Model } from '../types';
import { dict, list, num, text } from './read';

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
  const m = dict(model);
  const tier = quality ?? dict(dict(m?.params)?.quality)?.default;
  const prices = dict(m?.credits_by_quality);
  return typeof tier === 'string' ? (num(prices?.[tier]) ?? num(prices?.[tier.toLowerCase()])) : undefined;
}

/** Extra credits for a number of reference images (`credits_by_references`, keyed by count). */
export function creditsForReferences(model: Model, count: number): number | undefined {
  return num(dict(dict(model)?.credits_by_references)?.[String(count)]);
}

/** Params the list does not price: away from their defaults, the figure is a "from" price. */
const UNPRICED = ['aspect_ratio', 'size', 'resolution', 'duration', 'audio'] as const;

/**
 * A price from the model entry alone, so an app can show it before asking `estimate`:
 * the quality tier (or `credits_from`, the account's live price of the default request),
 * plus reference images, times `number_results`, plus enhance. Never throws: a malformed
 * entry or param reads as absent, and a price the entry cannot tell is `undefined`.
 */
export function quotePrice(model: Model, params: Record<string, unknown> = {}): PriceQuote {
  const m = (dict(model) ?? {}) as Model;
  const p = dict(params) ?? {};
  const specs = dict(m.params) ?? {};
  const defaultResults = positiveInt(dict(specs.number_results)?.default) ?? 1;
  // Number(undefined) is NaN: a price the entry lacks stays NaN, and becomes undefined below.
  const perResult =
    Number(dict(m.credits_by_quality) ? creditsForQuality(m, text(p.quality)) : Number(num(m.credits_from)) / defaultResults) +
    Number(dict(m.credits_by_references) ? creditsForReferences(m, list(p.reference_images)?.length ?? 0) : 0);
  const results = positiveInt(p.number_results) ?? defaultResults;
  // A count past the contract's maximum is refused by the service, and a runaway list price is
  // no price: neither is quoted (a quote is a whole, finite number of credits or undefined).
  const priced = perResult >= 0 && results <= NUMBER_RESULTS_MAX ? Math.round(perResult * results) : undefined;
  const credits = Number.isSafeInteger(priced) ? priced : undefined;
  const enhanceCredits = p.enhance === true ? ENHANCE_CREDITS : 0;
  return {
    credits,
    enhanceCredits,
    total: credits === undefined ? undefined : credits + enhanceCredits,
    exact: !UNPRICED.some((k) => p[k] !== undefined && p[k] !== dict(specs[k])?.default),
  };
}

const positiveInt = (v: unknown): number | undefined => (Number.isInteger(v) && (v as number) > 0 ? (v as number) : undefined);
