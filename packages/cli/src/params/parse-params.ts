import type { Model, ParamSpec, ParamsIssue } from '@mediagen/core';
import { PARAM_KEYS } from '@mediagen/core/wire';
import { describeSpec, paramKeysOf } from './describe';
import { cleanSpecs } from './spec';

/** Request fields the contract defines outside a model's schema, with their wire types. */
const OUTSIDE_SCHEMA: Record<string, 'string' | 'boolean'> = {
  negative_prompt: 'string',
  input_image: 'string',
  input_video: 'string',
  input_audio: 'string',
  enhance: 'boolean',
};

/** Schema keys whose wire type is fixed whatever a model's spec says (spec: POST /generate body). */
const NUMERIC_KEYS = new Set(['duration', 'seed', 'number_results']);
const BOOLEAN_KEYS = new Set(['audio', 'enhance']);
const ARRAY_KEYS = new Set(['reference_images']);
const SCHEMA_KEYS = new Set<string>(PARAM_KEYS);

const TRUE = new Set(['true', 'yes', 'on', '1']);
const FALSE = new Set(['false', 'no', 'off', '0']);

export interface ParsedParams {
  params: Record<string, unknown>;
  issues: ParamsIssue[];
}

/**
 * Turns `--param key=value` strings into wire params typed by the model's own schema:
 * numbers for numeric specs and numeric enums, booleans, arrays (repeat the flag, or a JSON
 * array). Never throws: every problem comes back as an issue, so all of them are shown at once.
 */
export function parseParamArgs(model: Model, pairs: readonly string[]): ParsedParams {
  const params: Record<string, unknown> = {};
  const issues: ParamsIssue[] = [];
  const specs: Record<string, ParamSpec | undefined> = cleanSpecs(model.params);
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      issues.push({ field: '--param', code: 'INVALID_SYNTAX', message: `--param "${pair}" must be key=value` });
      continue;
    }
    const key = pair.slice(0, at).trim();
    const raw = pair.slice(at + 1);
    // Own keys only: `constructor` or `__proto__` must not find Object.prototype's members.
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (!spec && !SCHEMA_KEYS.has(key) && !Object.hasOwn(OUTSIDE_SCHEMA, key)) {
      const outside = Object.keys(OUTSIDE_SCHEMA).filter((k) => k !== 'enhance' || model.enhance_supported);
      const takes = [...paramKeysOf(model), ...outside].join(', ');
      issues.push({ field: key, code: 'UNKNOWN_PARAM', message: `${model.slug} has no param "${key}" (it takes: ${takes})` });
      continue;
    }
    const value = parseValue(key, raw, spec);
    if (value === INVALID) {
      const expected = spec ? describeSpec(key, spec, model) : expectedByWire(key);
      issues.push({ field: key, code: 'INVALID_TYPE', message: `${key} "${raw}" is not valid: expected ${expected}` });
      continue;
    }
    if (ARRAY_KEYS.has(key) || spec?.type === 'string[]') {
      const list = Array.isArray(params[key]) ? (params[key] as unknown[]) : [];
      define(params, key, [...list, ...(value as unknown[])]);
    } else if (Object.hasOwn(params, key)) {
      issues.push({ field: key, code: 'DUPLICATE', message: `${key} is given more than once` });
    } else {
      define(params, key, value);
    }
  }
  return { params, issues };
}

const INVALID = Symbol('invalid');

/** A plain own data property, even for a key like `__proto__`. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function parseValue(key: string, raw: string, spec: ParamSpec | undefined): unknown {
  const text = raw.trim();
  if (ARRAY_KEYS.has(key) || spec?.type === 'string[]') {
    if (!text.startsWith('[')) return [raw];
    try {
      const list: unknown = JSON.parse(text);
      return Array.isArray(list) && list.every((v) => typeof v === 'string') ? list : INVALID;
    } catch {
      return INVALID;
    }
  }
  if (BOOLEAN_KEYS.has(key) || spec?.type === 'boolean') {
    const lower = text.toLowerCase();
    return TRUE.has(lower) ? true : FALSE.has(lower) ? false : INVALID;
  }
  const numericEnum = Array.isArray(spec?.values) && spec.values.length > 0 && spec.values.every((v) => typeof v === 'number');
  if (NUMERIC_KEYS.has(key) || spec?.type === 'number' || spec?.type === 'integer' || numericEnum) {
    // Number('') is 0 and Number(' ') too: an empty value is not a number.
    const n = text === '' ? Number.NaN : Number(text);
    return Number.isFinite(n) ? n : INVALID;
  }
  return raw;
}

function expectedByWire(key: string): string {
  if (NUMERIC_KEYS.has(key)) return 'a number';
  if (BOOLEAN_KEYS.has(key)) return 'true or false';
  if (ARRAY_KEYS.has(key)) return 'a URL (repeat the flag for several)';
  return 'text';
}
