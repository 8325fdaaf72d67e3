import type { Model, ParamSpec } from '@mediagen/core';
import { cleanSpec } from './spec';

/** What a param accepts, in words, from the model's own spec: `one of 5, 10`, `2 to 30`, … */
export function describeSpec(key: string, raw: ParamSpec): string {
  const spec = cleanSpec(raw) ?? { type: 'unknown' as ParamSpec['type'] };
  const values = Array.isArray(spec.values) ? spec.values.filter((v) => typeof v === 'string' || typeof v === 'number') : [];
  if (values.length > 0) return `one of ${values.join(', ')}`;
  if (spec.type === 'boolean') return 'true or false';
  if (spec.type === 'string[]') return `${spec.min ?? 0} to ${spec.max ?? '…'} URLs (repeat --param ${key}=URL)`;
  if (spec.type === 'number' || spec.type === 'integer' || key === 'duration' || key === 'seed') {
    const min = key === 'number_results' ? (spec.min ?? 1) : spec.min;
    if (min !== undefined || spec.max !== undefined) return `a whole number from ${min ?? '…'} to ${spec.max ?? '…'}`;
    return 'a whole number';
  }
  if (spec.max_length !== undefined) return `text up to ${spec.max_length} characters`;
  return 'text';
}

/** The params a model takes, for "unknown param" messages. */
export function paramKeysOf(model: Model): string[] {
  return model.params && typeof model.params === 'object' ? Object.keys(model.params) : [];
}
