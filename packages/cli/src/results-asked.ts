import type { Model } from '@mediagen/core';
import { effectiveLimits, NUMBER_RESULTS_MAX, NUMBER_RESULTS_MIN } from '@mediagen/core/wire';

/**
 * How many outputs a submit asked for, so no more are downloaded: its `number_results`, else the
 * model's listed default, else one; never above what the model takes (at most the contract's 4).
 */
export function resultsAsked(model: Model, params: Record<string, unknown>): number {
  const { max } = effectiveLimits(model).numberResults;
  const asked = count(params.number_results) ?? count(model.params?.number_results?.default) ?? NUMBER_RESULTS_MIN;
  return Math.min(asked, max);
}

/**
 * For a generation submitted elsewhere (`mediagen wait <id>`), whose params are not known: the
 * most its model takes, or the contract's cap when the model is not in the account's list.
 */
export function resultsAllowed(model: Model | undefined): number {
  return model ? effectiveLimits(model).numberResults.max : NUMBER_RESULTS_MAX;
}

const count = (value: unknown): number | undefined =>
  Number.isInteger(value) && (value as number) >= NUMBER_RESULTS_MIN ? (value as number) : undefined;
