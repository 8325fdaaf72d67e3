/**
 * The contract's facts about submit params (api-spec.md: Model, POST /api/v1/generate), stated
 * once. Core's `validateParams` and the emulator's validator both read these; the rules they
 * enforce are decided in `packages/core/src/params/RULES.md`.
 */

/** The flat price of the `enhance` pass, on top of `credits_estimate` (spec: Limits). */
export const ENHANCE_CREDITS = 20;

/** The keys a model's `params` schema may hold (spec: "The params object may contain only these keys"). */
export const PARAM_KEYS = [
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

/** The media inputs of a submit; which of them a model takes is not in the model list. */
export const INPUT_FIELDS = ['input_image', 'input_video', 'input_audio'] as const;

/** Every body field of `POST /api/v1/generate`, in the contract's order. */
export const SUBMIT_FIELDS = [
  'model',
  'prompt',
  'negative_prompt',
  'aspect_ratio',
  'size',
  'quality',
  'resolution',
  'duration',
  'audio',
  // INPUT_FIELDS, written out: a spread would keep this list in every bundle that imports the module.
  'input_image',
  'input_video',
  'input_audio',
  'reference_images',
  'seed',
  'number_results',
  'enhance',
  'estimate',
] as const;

export type SubmitField = (typeof SUBMIT_FIELDS)[number];

/** An exact `WIDTHxHEIGHT` size (spec: size, "Exact WIDTHxHEIGHT"). */
export const SIZE_PATTERN = /^\d+x\d+$/;

/**
 * An aspect-ratio value carrying a resolution tag in its text, e.g. `21:9 1080p`
 * (spec: "Aspect-ratio values may carry a resolution tag"). Group 1 is the ratio, group 2 the tag.
 */
export const RATIO_TAG_PATTERN = /^(\S+)\s+(\S+)$/;

/** The ratio and tag of a tagged aspect-ratio value; undefined for a bare ratio or a non-string. */
export function splitRatioTag(value: unknown): { ratio: string; tag: string } | undefined {
  const m = typeof value === 'string' ? RATIO_TAG_PATTERN.exec(value) : null;
  return m ? { ratio: m[1] as string, tag: m[2] as string } : undefined;
}

/**
 * The 4xx codes the service answers for params a model's list entry could have told the client
 * about; core's `validateParams` refuses each of them itself, on the same field.
 */
export const PARAMS_ERROR_CODES = [
  'INVALID_BODY',
  'INVALID_PARAMS',
  'MISSING_PROMPT',
  'INVALID_NUMBER_RESULTS',
  'OPTION_NOT_AVAILABLE',
  'ENHANCE_NOT_SUPPORTED',
] as const;
