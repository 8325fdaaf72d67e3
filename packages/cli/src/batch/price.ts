import type { GenerateParams, MediaGenClient, TypedGenerateParams } from '@mediagen/core';
import { ENHANCE_CREDITS } from '@mediagen/core/wire';

export interface BatchPrice {
  /** Sum of the exact estimates (`credits_estimate`, the upper bound of each call). */
  credits: number;
  /** The enhance passes asked for, 20 each, on top (the service bills them apart). */
  enhanceCredits: number;
  /** Estimate calls made (one per distinct priced request). */
  quotes: number;
}

/**
 * Fields that name what is rendered, not how: the service prices a request from its model and
 * its shaping params (size, quality, resolution, duration, results, references…) and the
 * account's overrides, so lines that differ only in these share one estimate. A catalogue of
 * 1,000 prompts costs a handful of estimate calls instead of 1,000 (quotes have their own
 * per-minute limit, double the submit limit).
 */
const NOT_PRICED = new Set(['prompt', 'negative_prompt', 'seed']);
const QUOTES_AT_ONCE = 4;

/** The exact total of `params` from `estimate` (nothing charged), one call per distinct priced request. */
export async function priceBatch(client: MediaGenClient, items: readonly GenerateParams[], signal?: AbortSignal): Promise<BatchPrice> {
  const groups = new Map<string, { params: GenerateParams; count: number }>();
  let enhanceCredits = 0;
  for (const params of items) {
    if (params.enhance === true) enhanceCredits += ENHANCE_CREDITS;
    const shape = JSON.stringify(
      Object.entries(params)
        .filter(([k]) => !NOT_PRICED.has(k))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    const group = groups.get(shape);
    if (group) group.count++;
    else groups.set(shape, { params, count: 1 });
  }
  const queue = [...groups.values()];
  let credits = 0;
  const worker = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) {
      const quote = await client.generations.estimate(group.params as TypedGenerateParams, signal ? { signal } : {});
      credits += Number(quote.credits_estimate) * group.count;
    }
  };
  await Promise.all(Array.from({ length: Math.min(QUOTES_AT_ONCE, queue.length) }, worker));
  return { credits, enhanceCredits, quotes: groups.size };
}
