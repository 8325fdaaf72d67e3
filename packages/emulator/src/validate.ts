import { randomInt } from 'node:crypto';
import type { ParamSpec } from '@mediagen/core';
import type { CatalogEntry, InputField, Normalized } from './catalog.js';
import {
  effectiveLimits,
  INPUT_FIELDS,
  NEGATIVE_PROMPT_MAX,
  PARAM_KEYS,
  PROMPT_MAX,
  SEED_MAX,
  SEED_MIN,
  SIZE_PATTERN,
  SUBMIT_FIELDS,
  splitRatioTag,
} from './constants.js';
import { EmulatorHttpError } from './errors.js';
import { linkProblem } from './inputs.js';

/** Every body field the submit endpoint knows; anything else is refused so typos surface. */
const KNOWN: ReadonlySet<string> = new Set(SUBMIT_FIELDS);

/** Schema keys checked against the model's params here; prompt and number_results have their own rules. */
const SPEC_KEYS = PARAM_KEYS.filter((k) => k !== 'prompt' && k !== 'number_results');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const invalid = (field: string, message: string, model?: string): EmulatorHttpError =>
  new EmulatorHttpError('INVALID_BODY', message, { details: { field }, ...(model ? { model } : {}) });

const notAvailable = (field: string, message: string, model: string): EmulatorHttpError =>
  new EmulatorHttpError('OPTION_NOT_AVAILABLE', message, { model, details: { field } });

/** Length in Unicode code points, the unit the contract's text limits count. */
export const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** Half of a surrogate pair without the other half (matched as a code point of its own under `u`). */
const LONE_SURROGATE = /\p{Cs}/u;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export interface ValidateContext {
  /** True when `id` is one of the caller's own completed generations. */
  ownCompleted(id: string): boolean;
  /** The `allowLoopbackInputs` setting: loopback links (http too) are accepted for local development. */
  allowLoopbackInputs?: boolean;
}

/** Checks the body shape shared by every model (before the model is resolved). */
export function checkShape(body: Record<string, unknown>): void {
  for (const k of Object.keys(body)) {
    if (!KNOWN.has(k)) throw invalid(k, `Unknown field "${k}".`);
  }
  if (body.model === undefined) throw invalid('model', '`model` is required.');
  if (typeof body.model !== 'string' || body.model === '') throw invalid('model', '`model` must be a model slug string.');
  for (const k of ['prompt', 'negative_prompt', ...INPUT_FIELDS] as const) {
    if (body[k] !== undefined && typeof body[k] !== 'string') throw invalid(k, `\`${k}\` must be a string.`);
  }
  for (const k of ['enhance', 'estimate', 'audio'] as const) {
    if (body[k] !== undefined && typeof body[k] !== 'boolean') throw invalid(k, `\`${k}\` must be true or false.`);
  }
  for (const k of ['prompt', 'negative_prompt'] as const) {
    // JSON can escape half of a surrogate pair alone ("\ud800"): no character, so the text is not
    // UTF-8, which the contract's text is.
    if (typeof body[k] === 'string' && LONE_SURROGATE.test(body[k])) {
      throw invalid(k, `\`${k}\` must be UTF-8 text: it has half a surrogate pair alone (an escape such as \\ud800 without its pair).`);
    }
  }
  const prompt = body.prompt as string | undefined;
  if (prompt !== undefined && codePoints(prompt) > PROMPT_MAX) {
    throw invalid('prompt', `\`prompt\` is longer than ${PROMPT_MAX} characters.`);
  }
  const neg = body.negative_prompt as string | undefined;
  if (neg !== undefined && codePoints(neg) > NEGATIVE_PROMPT_MAX) {
    throw invalid('negative_prompt', `\`negative_prompt\` is longer than ${NEGATIVE_PROMPT_MAX} characters.`);
  }
}

function checkInput(field: InputField, value: string, slug: string, ctx: ValidateContext): void {
  if (field === 'input_image' || field === 'input_video') {
    if (UUID.test(value)) {
      if (!ctx.ownCompleted(value)) {
        throw invalid(field, `\`${field}\` names no completed generation of this account.`, slug);
      }
      return;
    }
  }
  const problem = linkProblem(value, ctx.allowLoopbackInputs === true);
  if (problem !== null) {
    throw invalid(
      field,
      `\`${field}\` must be a public https URL${field === 'input_audio' ? '' : ' or the id of your own completed generation'}; this one ${problem}.`,
      slug,
    );
  }
}

const lower = (s: string): string => s.toLowerCase();

function enumValue(spec: ParamSpec, v: unknown, field: string, slug: string, caseless = false): string | number {
  const values = spec.values ?? [];
  const hit = values.find((x) => x === v || (caseless && typeof x === 'string' && typeof v === 'string' && lower(x) === lower(v)));
  if (hit === undefined) {
    throw invalid(field, `\`${field}\` ${JSON.stringify(v)} is not supported by ${slug}; allowed: ${values.join(', ')}.`, slug);
  }
  return hit;
}

/** A resolution tag carried in the text of an aspect-ratio value, e.g. "21:9 1080p" (the wire's pattern). */
const ratioTag = (ar: string): string | undefined => splitRatioTag(ar)?.tag;

/**
 * Validates a body against the model's own spec (the rules: `packages/core/src/params/RULES.md`;
 * the facts: `@mediagen/core/wire`) and returns the normalised params
 * (defaults applied, tags resolved, seed fixed). Throws EmulatorHttpError with the spec's codes.
 */
export function normalize(body: Record<string, unknown>, entry: CatalogEntry, ctx: ValidateContext): Normalized {
  const m = entry.model;
  const slug = m.slug;
  const params = m.params;

  const prompt = (body.prompt as string | undefined) ?? '';
  const limits = effectiveLimits(m);
  const promptMax = limits.promptMax;
  if (codePoints(prompt) > promptMax) throw invalid('prompt', `\`prompt\` is longer than ${promptMax} characters on ${slug}.`, slug);
  if (entry.needsPrompt && prompt.trim() === '') {
    throw new EmulatorHttpError('MISSING_PROMPT', `${slug} needs a non-empty \`prompt\`.`, { model: slug });
  }

  if (body.input_video !== undefined && entry.billsByClipLength) {
    throw new EmulatorHttpError(
      'INPUT_VIDEO_NOT_SUPPORTED',
      `${slug} bills video-to-video by the exact source-clip length, which the API cannot quote; input_video is refused.`,
      { model: slug },
    );
  }
  for (const f of INPUT_FIELDS) {
    const v = body[f];
    if (v === undefined) continue;
    if (!entry.accepts.includes(f)) throw invalid(f, `${slug} does not take \`${f}\`.`, slug);
    checkInput(f, v as string, slug, ctx);
  }

  if (body.enhance === true && !m.enhance_supported) {
    throw new EmulatorHttpError('ENHANCE_NOT_SUPPORTED', `${slug} does not support the enhance pass.`, { model: slug });
  }

  // number_results
  const nrSpec = params.number_results;
  // RULES.md rule 1: a model whose list gives no max takes one result.
  const { min: nrMin, max: nrMax } = limits.numberResults;
  let numberResults = typeof nrSpec?.default === 'number' ? nrSpec.default : 1;
  if (body.number_results !== undefined) {
    const v = body.number_results;
    if (!isInt(v) || v < nrMin || v > nrMax) {
      throw new EmulatorHttpError('INVALID_NUMBER_RESULTS', `number_results must be an integer from ${nrMin} to ${nrMax} on ${slug}.`, {
        model: slug,
        details: { field: 'number_results' },
      });
    }
    numberResults = v;
  }

  for (const k of SPEC_KEYS) {
    if (body[k] !== undefined && params[k] === undefined) throw invalid(k, `${slug} does not take \`${k}\`.`, slug);
    if (body[k] === undefined && params[k]?.required) throw invalid(k, `\`${k}\` is required on ${slug}.`, slug);
  }

  const out: Normalized = {
    prompt,
    reference_images: [],
    number_results: numberResults,
    seed: 0,
    enhance: body.enhance === true,
  };
  if (typeof body.negative_prompt === 'string') out.negative_prompt = body.negative_prompt;
  for (const f of INPUT_FIELDS) {
    if (typeof body[f] === 'string') out[f] = body[f] as string;
  }

  // seed
  if (body.seed !== undefined) {
    const s = body.seed;
    // RULES.md rule 3.
    const min = params.seed?.min ?? SEED_MIN;
    const max = params.seed?.max ?? SEED_MAX;
    if (!isInt(s) || s < min || s > max) throw invalid('seed', `\`seed\` must be an integer from ${min} to ${max}.`, slug);
    out.seed = s;
  } else {
    out.seed = randomInt(SEED_MIN, SEED_MAX);
  }

  // quality
  const qSpec = params.quality;
  if (qSpec) {
    out.quality =
      body.quality !== undefined ? String(enumValue(qSpec, body.quality, 'quality', slug)) : String(qSpec.default ?? qSpec.values?.[0]);
  }

  // aspect_ratio
  const arSpec = params.aspect_ratio;
  if (arSpec) {
    // A bare ratio names its tagged listing too ("21:9" for "21:9 1080p"): the tag is a label.
    const tagged = arSpec.values?.find((v) => splitRatioTag(v)?.ratio === body.aspect_ratio);
    out.aspect_ratio =
      tagged !== undefined
        ? String(tagged)
        : body.aspect_ratio !== undefined
          ? String(enumValue(arSpec, body.aspect_ratio, 'aspect_ratio', slug))
          : String(arSpec.default ?? arSpec.values?.[0]);
  }

  // resolution (image values may be listed lowercase; either case is accepted)
  const resSpec = params.resolution;
  let resolutionGiven: string | undefined;
  if (resSpec && body.resolution !== undefined) {
    if (typeof body.resolution !== 'string') throw invalid('resolution', '`resolution` must be a string.', slug);
    resolutionGiven = String(enumValue(resSpec, body.resolution, 'resolution', slug, true));
  }

  // size
  const sizeSpec = params.size;
  if (sizeSpec) {
    const byQuality = sizeSpec.values_by_quality;
    const allowedForQuality = byQuality && out.quality ? byQuality[out.quality] : undefined;
    if (body.size !== undefined) {
      if (typeof body.size !== 'string' || !SIZE_PATTERN.test(body.size)) {
        throw invalid('size', '`size` must be an exact WIDTHxHEIGHT string.', slug);
      }
      const listed = (sizeSpec.values ?? []).includes(body.size);
      if (!listed && sizeSpec.presets_only !== false) {
        throw invalid(
          'size',
          `size ${body.size} is not one of ${slug}'s sizes (${(sizeSpec.values ?? []).join(', ')}); sizes are never rounded.`,
          slug,
        );
      }
      if (allowedForQuality && !allowedForQuality.includes(body.size)) {
        throw notAvailable('size', `size ${body.size} is not available at quality "${out.quality}" on ${slug}.`, slug);
      }
      out.size = body.size;
      const tag = sizeSpec.options?.find((o) => o.size === body.size)?.tag;
      if (resolutionGiven !== undefined && tag !== undefined && lower(tag) !== lower(resolutionGiven)) {
        throw notAvailable('resolution', `resolution ${resolutionGiven} does not match size ${body.size} (${tag}) on ${slug}.`, slug);
      }
      if (resSpec) out.resolution = resolutionGiven ?? tag ?? String(resSpec.default);
    } else if (resolutionGiven !== undefined) {
      const pick = (sizeSpec.options ?? []).find(
        (o) => o.tag !== undefined && lower(o.tag) === lower(resolutionGiven) && (!allowedForQuality || allowedForQuality.includes(o.size)),
      );
      if (!pick) {
        throw notAvailable('resolution', `resolution ${resolutionGiven} is not available at quality "${out.quality}" on ${slug}.`, slug);
      }
      out.size = pick.size;
      out.resolution = resolutionGiven;
    } else {
      out.size = String(sizeSpec.default ?? sizeSpec.values?.[0]);
      if (resSpec) out.resolution = String(resSpec.default ?? resSpec.values?.[0]);
    }
  } else if (resSpec) {
    const tag = out.aspect_ratio !== undefined ? ratioTag(out.aspect_ratio) : undefined;
    if (tag !== undefined && resolutionGiven !== undefined && lower(tag) !== lower(resolutionGiven)) {
      throw notAvailable('aspect_ratio', `aspect_ratio "${out.aspect_ratio}" is only available at ${tag}, not ${resolutionGiven}.`, slug);
    }
    out.resolution =
      resolutionGiven ??
      (tag !== undefined ? String(enumValue(resSpec, tag, 'aspect_ratio', slug, true)) : String(resSpec.default ?? resSpec.values?.[0]));
  }

  // video matrix: the audited (resolution, ratio) pairs
  const matrix = m.video_matrix?.dimensions;
  if (
    matrix &&
    out.resolution !== undefined &&
    out.aspect_ratio !== undefined &&
    matrix[out.resolution]?.[out.aspect_ratio] === undefined
  ) {
    throw notAvailable('aspect_ratio', `aspect_ratio "${out.aspect_ratio}" is not available at ${out.resolution} on ${slug}.`, slug);
  }

  // duration: whole seconds within the model's enum or range
  const dSpec = params.duration;
  if (dSpec) {
    if (body.duration !== undefined) {
      const d = body.duration;
      if (!isInt(d)) throw invalid('duration', '`duration` must be a whole number of seconds.', slug);
      if (dSpec.type === 'enum' || dSpec.values) {
        if (!(dSpec.values ?? []).includes(d)) {
          throw invalid('duration', `duration ${d} is not supported by ${slug}; allowed: ${(dSpec.values ?? []).join(', ')}.`, slug);
        }
      } else if ((dSpec.min !== undefined && d < dSpec.min) || (dSpec.max !== undefined && d > dSpec.max)) {
        throw invalid('duration', `duration must be from ${dSpec.min} to ${dSpec.max} seconds on ${slug}.`, slug);
      }
      out.duration = d;
    } else {
      out.duration = Number(dSpec.default ?? dSpec.values?.[0] ?? dSpec.min ?? 5);
    }
  }

  const aSpec = params.audio;
  if (aSpec) out.audio = body.audio !== undefined ? (body.audio as boolean) : aSpec.default === true;

  const rSpec = params.reference_images;
  if (body.reference_images !== undefined && rSpec) {
    const r = body.reference_images;
    if (!Array.isArray(r) || r.some((x) => typeof x !== 'string')) {
      throw invalid('reference_images', '`reference_images` must be an array of URL strings.', slug);
    }
    const { min, max } = limits.referenceImages;
    if (r.length > max || r.length < min) {
      throw invalid('reference_images', `reference_images takes ${min} to ${max} URLs on ${slug}.`, slug);
    }
    (r as string[]).forEach((u, i) => {
      const problem = linkProblem(u, ctx.allowLoopbackInputs === true);
      if (problem !== null)
        throw invalid('reference_images', `Each reference image must be a public https URL; reference_images[${i}] ${problem}.`, slug);
    });
    out.reference_images = r as string[];
  }

  const mode = entry.modeRule?.(out);
  if (mode) throw notAvailable(mode.field, mode.message, slug);

  for (const f of entry.requires ?? []) {
    if (out[f] === undefined) {
      throw new EmulatorHttpError('MODEL_CONTRACT_VIOLATION', `${slug} requires \`${f}\`.`, { model: slug, details: { field: f } });
    }
  }
  return out;
}
