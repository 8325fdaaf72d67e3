import type { ParamsIssue } from '../errors';
import { NEGATIVE_PROMPT_MAX, SEED_MAX, SEED_MIN } from '../limits';
import type { Model } from '../types';
import { parseUrl } from '../util/parse-url';
import { INPUT_FIELDS, PARAM_KEYS, SIZE_PATTERN, splitRatioTag } from '../wire/params';
import { numberResultsRange, promptMaxOf, referenceImagesRange } from './limit-rules';
import { type Dict, dict, label, list, lower, num, text } from './read';

type Add = (field: string, code: string, message: string) => void;

/** Spec types this client knows how to read; a later one is left to the server. */
const KNOWN_TYPE = /^(?:string|enum|number|integer|boolean|string\[\])$/;

const UUID = /^[\da-f]{8}(?:-[\da-f]{4}){3}-[\da-f]{12}$/i;

/**
 * Checks params against the model's own schema (its entry in the model list) and returns
 * every issue, empty when valid. The rules, and why each is what it is, are in `RULES.md`
 * next to this file; the emulator enforces the same ones. Never throws: a malformed entry or
 * params value reads as absent.
 */
export function validateParams(model: Model, params: object): ParamsIssue[] {
  const issues: ParamsIssue[] = [];
  // Returns nothing on purpose: `checkValue` returns `add(...)` to mean "no valid value".
  const add: Add = (field, code, message) => {
    issues.push({ field, code, message });
  };
  const m = dict(model) ?? {};
  const specs = dict(m.params) ?? {};
  const p = dict(params) ?? {};
  const spec = (key: string): Dict | undefined => dict(specs[key]);

  checkText(p, m, spec('prompt'), add);
  checkInputs(p, add);
  for (const key of ['enhance', 'estimate'] as const) {
    if (p[key] !== undefined && typeof p[key] !== 'boolean') add(key, 'INVALID_TYPE', `${key} must be a boolean`);
  }
  if (p.enhance === true && m.enhance_supported !== true) add('enhance', 'ENHANCE_NOT_SUPPORTED', 'enhance is not supported');
  checkNumberResults(p.number_results, spec('number_results'), add);

  // Rule 6: every other schema key must be in the model's schema (rule 5: prompt need not).
  const valid: Dict = {};
  for (const key of PARAM_KEYS) {
    if (key === 'prompt' || key === 'number_results') continue;
    const s = spec(key);
    const value = p[key];
    if (value === undefined) {
      if (s?.required === true) add(key, 'REQUIRED', `${key} is required`);
    } else if (!s) {
      add(key, 'NOT_SUPPORTED', `${key} is not supported`);
    } else {
      const listed = checkValue(key, value, s, add);
      if (listed !== undefined) valid[key] = listed;
    }
  }
  checkCombinations(p, valid, m, spec, add);
  return issues;
}

/** Rules 5, 14 and 16: prompt and negative_prompt lengths and text, and MISSING_PROMPT. */
function checkText(p: Dict, m: Dict, promptSpec: Dict | undefined, add: Add): void {
  for (const [field, limit] of [
    ['prompt', promptMaxOf(m, promptSpec)],
    ['negative_prompt', NEGATIVE_PROMPT_MAX],
  ] as const) {
    const value = p[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') add(field, 'INVALID_TYPE', `${field} must be a string`);
    // Code points, not UTF-16 units: an emoji counts as one character.
    else if ([...value].length > limit) add(field, 'TOO_LONG', `${field} is over ${limit} characters`);
    // Half a surrogate pair alone (JSON's "\ud800") is no character: not UTF-8 text, which the service refuses.
    else if (/\p{Cs}/u.test(value)) add(field, 'INVALID_VALUE', `${field} must be UTF-8`);
  }
  const prompt = p.prompt;
  if (promptSpec?.required === true && (prompt === undefined || text(prompt)?.trim() === '')) {
    add('prompt', 'MISSING_PROMPT', 'prompt must not be empty');
  }
}

/**
 * An http(s) URL. Whether it is public https is the service's to judge, as it judges the address
 * (the emulator takes loopback http links with `allowLoopbackInputs`, for local development).
 */
const isLink = (v: string): boolean => /^https?:$/.test(parseUrl(v)?.protocol as string);

/** Rule 10: inputs are http(s) URLs, or (image, video) a generation id. */
function checkInputs(p: Dict, add: Add): void {
  for (const field of INPUT_FIELDS) {
    const value = p[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || (!isLink(value) && (field === 'input_audio' || !UUID.test(value)))) {
      add(
        field,
        typeof value === 'string' ? 'INVALID_VALUE' : 'INVALID_TYPE',
        `${field} must be a URL, generation id or file with the inputs option`,
      );
    }
  }
}

/** Rule 1: a whole number in the model's range; the range is 1..1 when the list gives none. */
function checkNumberResults(value: unknown, s: Dict | undefined, add: Add): void {
  if (value === undefined) return;
  const { min, max } = numberResultsRange(s);
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    add('number_results', 'INVALID_NUMBER_RESULTS', `number_results must be ${min} to ${max}`);
  }
}

/**
 * One key's value against its own spec. Returns the value as the list spells it (for the
 * checks that combine keys) when valid, undefined when an issue was added or the spec's type
 * is one this client does not know.
 */
function checkValue(key: string, value: unknown, s: Dict, add: Add): unknown {
  const type = s.type;
  if (typeof type === 'string' && !KNOWN_TYPE.test(type)) return undefined;
  const values = list(s.values);
  const oneOf = () => add(key, 'INVALID_VALUE', `${key} must be one of: ${values?.map(label).join(', ')}`);
  // For reference_images, the range of the count.
  const range = (n: number, min: number | undefined, max: number | undefined): boolean => {
    if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
      add(key, 'OUT_OF_RANGE', `${key} must be ${min ?? '…'} to ${max ?? '…'}`);
      return false;
    }
    return true;
  };

  switch (key) {
    case 'audio':
      if (typeof value === 'boolean') return value;
      return add(key, 'INVALID_TYPE', `${key} must be a boolean`);
    case 'reference_images': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return add(key, 'INVALID_TYPE', `${key} must be a string[]`);
      const { min, max } = referenceImagesRange(s);
      if (!range(value.length, min, max)) return undefined;
      if (!value.every(isLink)) return add(key, 'INVALID_VALUE', `${key} must be URLs`);
      return value;
    }
    case 'duration':
    case 'seed': {
      // Whole seconds, whole seeds, whatever type the list shows.
      if (!Number.isInteger(value)) return add(key, 'INVALID_TYPE', `${key} must be a whole number`);
      const n = value as number;
      if (key === 'duration' && (type === 'enum' || values)) return values?.includes(n) ? n : oneOf();
      const seed = key === 'seed';
      return range(n, num(s.min) ?? (seed ? SEED_MIN : undefined), num(s.max) ?? (seed ? SEED_MAX : undefined)) ? n : undefined;
    }
    case 'size': {
      if (typeof value !== 'string' || !SIZE_PATTERN.test(value)) return add(key, 'INVALID_TYPE', `${key} must be WIDTHxHEIGHT`);
      // Rule 9: presets are exact; an off-list size is refused, never rounded.
      if (s.presets_only !== false && !values?.includes(value)) return oneOf();
      return value;
    }
  }
  // quality, resolution, aspect_ratio: listed strings.
  if (typeof value !== 'string') return add(key, 'INVALID_TYPE', `${key} must be a string`);
  if (!values) return value;
  // Rule 2: exact, except resolution (case-insensitive); rule 7: a bare ratio names its tagged listing.
  const hit =
    key === 'resolution'
      ? values.find((v) => lower(v) === value.toLowerCase())
      : key === 'aspect_ratio'
        ? (values.find((v) => splitRatioTag(v)?.ratio === value) ?? values.find((v) => v === value))
        : values.find((v) => v === value);
  return hit === undefined ? oneOf() : hit;
}

/** Rules 4, 7 and 8: the checks that read several keys, on values that passed their own. */
function checkCombinations(p: Dict, valid: Dict, m: Dict, spec: (key: string) => Dict | undefined, add: Add): void {
  if (['quality', 'resolution', 'aspect_ratio', 'size'].some((k) => p[k] !== undefined && valid[k] === undefined)) return;
  // A key's value as the service resolves it: given, else the spec's default, else its first value.
  const resolve = (key: string) => {
    const s = spec(key);
    return s ? (valid[key] ?? s.default ?? list(s.values)?.[0]) : undefined;
  };
  const unavailable = (field: string) => add(field, 'OPTION_NOT_AVAILABLE', `${field} is not available with the other params`);
  const sizeSpec = spec('size');
  const resSpec = spec('resolution');
  const res = valid.resolution;
  let resolved = resolve('resolution');

  if (sizeSpec) {
    const byQuality = list(dict(sizeSpec.values_by_quality)?.[label(resolve('quality'))]);
    const offered = (size: unknown) => !byQuality || byQuality.includes(size);
    const options = (list(sizeSpec.options) ?? []).map(dict);
    const size = valid.size;
    if (size !== undefined) {
      if (!offered(size)) unavailable('size');
      const tag = options.find((o) => o?.size === size)?.tag;
      if (res !== undefined && tag !== undefined && lower(tag) !== lower(res)) unavailable('resolution');
      resolved = resSpec && (res ?? tag ?? resSpec.default);
    } else if (res !== undefined && !options.some((o) => o?.tag !== undefined && lower(o.tag) === lower(res) && offered(o.size))) {
      unavailable('resolution');
    }
  } else if (resSpec) {
    const tag = splitRatioTag(resolve('aspect_ratio'))?.tag;
    if (tag !== undefined) {
      if (res !== undefined && lower(tag) !== lower(res)) return unavailable('aspect_ratio');
      resolved = res ?? list(resSpec.values)?.find((v) => lower(v) === lower(tag));
      if (resolved === undefined) return add('aspect_ratio', 'INVALID_VALUE', 'aspect_ratio names no listed resolution');
    }
  }

  // Rule 8: the audited (resolution, aspect ratio) pairs of a video model.
  const matrix = dict(dict(m.video_matrix)?.dimensions);
  const ratio = resolve('aspect_ratio');
  if (matrix && typeof resolved === 'string' && typeof ratio === 'string' && dict(matrix[resolved])?.[ratio] === undefined) {
    unavailable('aspect_ratio');
  }
}
