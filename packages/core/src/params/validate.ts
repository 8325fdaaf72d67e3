import type { ParamsIssue } from '../errors';
import { NEGATIVE_PROMPT_MAX, NUMBER_RESULTS_MAX, PROMPT_MAX, REFERENCE_IMAGES_MAX } from '../limits';
import type { Model, ParamSpec } from '../types';

/** The param keys a model's schema may list; any of them sent to a model that does not list it is refused. */
const SPEC_KEYS = [
  'prompt',
  'aspect_ratio',
  'size',
  'quality',
  'resolution',
  'duration',
  'audio',
  'reference_images',
  'number_results',
  'seed',
] as const;

/** A resolution tag in the text of an aspect-ratio value, e.g. `21:9 1080p`. */
const TAGGED = /^(\S+)\s+(\S+)$/;

/**
 * Checks params against the model's own schema (its entry in the model list) and returns
 * every issue, empty when valid. Lenient where the contract is: fields outside the schema's
 * keys (inputs, `negative_prompt`, future params) are left to the server, unknown spec types
 * are skipped, and the earlier spec forms (`integer`, `string` + `max_length`) are read.
 */
export function validateParams(model: Model, params: object): ParamsIssue[] {
  const issues: ParamsIssue[] = [];
  const add = (field: string, code: string, message: string) => issues.push({ field, code, message });
  const specs = (model?.params ?? {}) as Record<string, ParamSpec | undefined>;
  const p = (params ?? {}) as Record<string, unknown>;
  const slug = model?.slug;

  const text = (field: string, value: unknown, max: number) => {
    if (value === undefined) return;
    if (typeof value !== 'string') add(field, 'INVALID_TYPE', `${field} must be a string`);
    // Code points, not UTF-16 units: an emoji counts as one character.
    else if ([...value].length > max) add(field, 'TOO_LONG', `${field} is over ${max} characters`);
  };
  text('prompt', p.prompt, Math.min(PROMPT_MAX, model?.prompt_max_chars ?? PROMPT_MAX, specs.prompt?.max_length ?? PROMPT_MAX));
  text('negative_prompt', p.negative_prompt, NEGATIVE_PROMPT_MAX);
  if (specs.prompt?.required && (p.prompt === undefined || (typeof p.prompt === 'string' && p.prompt.trim() === ''))) {
    add('prompt', 'MISSING_PROMPT', `${slug} needs a non-empty prompt`);
  }

  for (const key of SPEC_KEYS) {
    const spec = specs[key];
    const value = p[key];
    if (value === undefined) {
      if (spec?.required && key !== 'prompt') add(key, 'REQUIRED', `${key} is required on ${slug}`);
    } else if (!spec) {
      // Also `quality` on a model with no quality tiers.
      add(key, 'NOT_SUPPORTED', `${slug} does not take ${key}`);
    } else if (key !== 'prompt') {
      check(key, value, spec, p, specs, add);
    }
  }

  if (p.enhance !== undefined && typeof p.enhance !== 'boolean') add('enhance', 'INVALID_TYPE', 'enhance must be a boolean');
  else if (p.enhance === true && !model?.enhance_supported) add('enhance', 'ENHANCE_NOT_SUPPORTED', `${slug} does not support enhance`);
  return issues;
}

function check(
  key: string,
  value: unknown,
  spec: ParamSpec,
  p: Record<string, unknown>,
  specs: Record<string, ParamSpec | undefined>,
  add: (field: string, code: string, message: string) => void,
): void {
  const values = Array.isArray(spec.values) ? spec.values : undefined;
  const oneOf = () => add(key, 'INVALID_VALUE', `${key} ${JSON.stringify(value)} is not one of: ${values?.join(', ')}`);
  const range = (n: number, code = 'OUT_OF_RANGE', min = spec.min, max = spec.max, what = key) => {
    if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
      add(key, code, `${what} must be ${min ?? '…'} to ${max ?? '…'}`);
    }
  };

  if (key === 'number_results') {
    // A non-integer counts as 0, so it fails the range check like any value out of range.
    const n = Number.isInteger(value) ? (value as number) : 0;
    return range(n, 'INVALID_NUMBER_RESULTS', Math.max(1, spec.min ?? 1), Math.min(spec.max ?? NUMBER_RESULTS_MAX, NUMBER_RESULTS_MAX));
  }
  if (key === 'reference_images' || spec.type === 'string[]') {
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return add(key, 'INVALID_TYPE', `${key} must be a string[]`);
    const max = key === 'reference_images' ? Math.min(spec.max ?? REFERENCE_IMAGES_MAX, REFERENCE_IMAGES_MAX) : spec.max;
    return range(value.length, undefined, spec.min, max, `${key} count`);
  }
  if (key === 'size') {
    if (typeof value !== 'string' || !/^\d+x\d+$/.test(value)) return add(key, 'INVALID_TYPE', 'size must be a WIDTHxHEIGHT string');
    // Presets are exact: an off-list size is refused, never rounded to the nearest one.
    if (spec.presets_only !== false && values && !values.includes(value)) return oneOf();
    const quality = p.quality ?? specs.quality?.default;
    const forQuality = typeof quality === 'string' ? spec.values_by_quality?.[quality] : undefined;
    if (forQuality && !forQuality.includes(value)) add(key, 'OPTION_NOT_AVAILABLE', `${key} ${value} is not available at ${quality}`);
    return;
  }
  if (spec.type === 'boolean' || key === 'audio') {
    if (typeof value !== 'boolean') add(key, 'INVALID_TYPE', `${key} must be a boolean`);
    return;
  }
  // A spec type from a later version of the list: left to the server.
  if (!/^(enum|string|number|integer)$/.test(spec.type) && key !== 'duration' && key !== 'seed') return;
  const numeric = spec.type === 'number' || spec.type === 'integer' || key === 'duration' || key === 'seed';
  if (numeric) {
    // Durations are whole seconds and seeds whole numbers, whatever type the list shows.
    const whole = spec.type === 'integer' || key === 'duration' || key === 'seed';
    if (typeof value !== 'number' || !Number.isFinite(value) || (whole && !Number.isInteger(value))) {
      return add(key, 'INVALID_TYPE', `${key} must be a ${whole ? 'whole ' : ''}number`);
    }
  } else if (typeof value !== 'string') {
    return add(key, 'INVALID_TYPE', `${key} must be a string`);
  }
  if (values) {
    const hit = values.find((v) => matches(v, value) || (key === 'aspect_ratio' && matches(TAGGED.exec(String(v))?.[1], value)));
    if (hit === undefined) return oneOf();
    const tag = key === 'aspect_ratio' ? TAGGED.exec(String(hit))?.[2] : undefined;
    const resolution = p.resolution;
    if (tag && typeof resolution === 'string' && tag.toLowerCase() !== resolution.toLowerCase()) {
      add(key, 'OPTION_NOT_AVAILABLE', `${key} ${hit} is not available at ${resolution}`);
    }
    return;
  }
  if (typeof value === 'number') range(value);
  else if (spec.max_length !== undefined && [...(value as string)].length > spec.max_length) {
    add(key, 'TOO_LONG', `${key} is over ${spec.max_length} characters`);
  }
}

/** Equal, or equal ignoring case where the listed value is itself lowercase (`1k` accepts `1K`). */
function matches(listed: unknown, value: unknown): boolean {
  if (listed === value) return true;
  return typeof listed === 'string' && typeof value === 'string' && listed === listed.toLowerCase() && listed === value.toLowerCase();
}
