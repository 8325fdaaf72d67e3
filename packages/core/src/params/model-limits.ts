import {
  NEGATIVE_PROMPT_MAX,
  NUMBER_RESULTS_MAX,
  NUMBER_RESULTS_MIN,
  NUMBER_RESULTS_UNLISTED_MAX,
  PROMPT_MAX,
  REFERENCE_IMAGES_MAX,
} from '../limits';
import { dict, num } from './read';

/** A model's limits once the contract's and its own list entry's are combined: what a request may send. */
export interface EffectiveLimits {
  /** Longest `prompt`, in code points. */
  promptMax: number;
  /** Longest `negative_prompt`, in code points, on every model. */
  negativePromptMax: number;
  /** `number_results` range. */
  numberResults: { min: number; max: number };
  /** How many `reference_images`. */
  referenceImages: { min: number; max: number };
}

/**
 * A model's effective limits (spec: Limits, and each model's entry), for everything that must
 * agree with `validateParams`: the emulator, the CLI's type generator, the studio's form.
 * `validateParams` keeps the same formulas inline (as a function call they cost the client
 * bundle past its size budget); `test/model-limits.test.ts` proves the two agree on any entry.
 * Reads the entry defensively: a malformed part counts as absent.
 */
export function effectiveLimits(model: unknown): EffectiveLimits {
  const m = dict(model) ?? {};
  const spec = (key: string) => dict(dict(m.params)?.[key]);
  const results = spec('number_results');
  const refs = spec('reference_images');
  return {
    // The contract's 2000, the model's `prompt_max_chars` or an earlier form's `max_length`, whichever is lowest.
    promptMax: Math.min(PROMPT_MAX, num(m.prompt_max_chars) ?? PROMPT_MAX, num(spec('prompt')?.max_length) ?? PROMPT_MAX),
    negativePromptMax: NEGATIVE_PROMPT_MAX,
    // A model whose list gives no max takes one result (params RULES.md, rule 1); never above the contract's 4.
    numberResults: {
      min: Math.max(NUMBER_RESULTS_MIN, num(results?.min) ?? NUMBER_RESULTS_MIN),
      max: Math.min(num(results?.max) ?? NUMBER_RESULTS_UNLISTED_MAX, NUMBER_RESULTS_MAX),
    },
    // The contract's 3 caps the model's own max.
    referenceImages: { min: num(refs?.min) ?? 0, max: Math.min(num(refs?.max) ?? REFERENCE_IMAGES_MAX, REFERENCE_IMAGES_MAX) },
  };
}
