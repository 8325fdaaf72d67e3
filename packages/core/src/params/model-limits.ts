import { NEGATIVE_PROMPT_MAX } from '../limits';
import { type CountRange, numberResultsRange, promptMaxOf, referenceImagesRange } from './limit-rules';
import { dict } from './read';

/** A model's limits once the contract's and its own list entry's are combined: what a request may send. */
export interface EffectiveLimits {
  /** Longest `prompt`, in code points. */
  promptMax: number;
  /** Longest `negative_prompt`, in code points, on every model. */
  negativePromptMax: number;
  /** `number_results` range. */
  numberResults: CountRange;
  /** How many `reference_images`. */
  referenceImages: CountRange;
}

/**
 * A model's effective limits (spec: Limits, and each model's entry), for everything that must
 * agree with `validateParams`: the emulator, the CLI's type generator, the studio's form. Built
 * from the same rule functions `validateParams` calls (`limit-rules.ts`), so the two cannot
 * drift; `test/model-limits.test.ts` checks them against each other on any entry. Reads the
 * entry defensively: a malformed part counts as absent.
 */
export function effectiveLimits(model: unknown): EffectiveLimits {
  const m = dict(model) ?? {};
  const spec = (key: string) => dict(dict(m.params)?.[key]);
  return {
    promptMax: promptMaxOf(m, spec('prompt')),
    negativePromptMax: NEGATIVE_PROMPT_MAX,
    numberResults: numberResultsRange(spec('number_results')),
    referenceImages: referenceImagesRange(spec('reference_images')),
  };
}
