import type { Model, ParamSpec } from '@mediagen/core';
import { effectiveLimits, SEED_MAX, SEED_MIN } from '@mediagen/core/wire';
import { cleanSpec } from './spec';

/**
 * What a param accepts, in words, from the model's own spec: `one of 5, 10`, `2 to 30`, … The
 * prompt's length, `number_results` and `reference_images` are the model's effective limits
 * (`effectiveLimits` of its list entry: the contract's and its own combined), the figures
 * `validateParams` and the service check.
 */
export function describeSpec(key: string, raw: ParamSpec, model: unknown): string {
  const spec = cleanSpec(raw) ?? { type: 'unknown' as ParamSpec['type'] };
  const limits = effectiveLimits(model);
  const values = Array.isArray(spec.values) ? spec.values.filter((v) => typeof v === 'string' || typeof v === 'number') : [];
  if (values.length > 0) return `one of ${values.join(', ')}`;
  if (spec.type === 'boolean') return 'true or false';
  if (spec.type === 'string[]' || key === 'reference_images') {
    const { min, max } = key === 'reference_images' ? limits.referenceImages : spec;
    return `${min ?? 0} to ${max ?? '…'} URLs (repeat --param ${key}=URL)`;
  }
  if (spec.type === 'number' || spec.type === 'integer' || key === 'duration' || key === 'seed') {
    // A seed's range when the list gives none: core's (params RULES.md, rule 3).
    const seed = key === 'seed' ? { min: spec.min ?? SEED_MIN, max: spec.max ?? SEED_MAX } : spec;
    const { min, max } = key === 'number_results' ? limits.numberResults : seed;
    if (min !== undefined || max !== undefined) return `a whole number from ${min ?? '…'} to ${max ?? '…'}`;
    return 'a whole number';
  }
  const length = key === 'prompt' ? limits.promptMax : spec.max_length;
  if (length !== undefined) return `text up to ${length} characters`;
  return 'text';
}

/** The params a model takes, for "unknown param" messages. */
export function paramKeysOf(model: Model): string[] {
  return model.params && typeof model.params === 'object' ? Object.keys(model.params) : [];
}
