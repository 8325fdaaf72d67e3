import { NUMBER_RESULTS_MAX, NUMBER_RESULTS_MIN, NUMBER_RESULTS_UNLISTED_MAX, PROMPT_MAX, REFERENCE_IMAGES_MAX } from '../limits';
import { type Dict, num } from './read';

// The formulas that combine the contract's limits with a model's list entry, each once. Two
// readers: `effectiveLimits` (in /wire, for the emulator, the CLI and forms) and `validateParams`,
// which calls these on the spec entries it has already read instead of building the whole
// `effectiveLimits` object: the client bundle pays for the formulas, not for the object's names.
// Each takes the part of the entry it reads, already passed through `dict` (absent when malformed).

export interface CountRange {
  min: number;
  max: number;
}

/** Longest `prompt`: the contract's 2000, the model's `prompt_max_chars` or an earlier form's `max_length`, whichever is lowest. */
export const promptMaxOf = (model: Dict, promptSpec: Dict | undefined): number =>
  Math.min(PROMPT_MAX, num(model.prompt_max_chars) ?? PROMPT_MAX, num(promptSpec?.max_length) ?? PROMPT_MAX);

/** A count's range: the list's own, never below `floor` nor above the contract's `cap`; `unlistedMax` when the list gives none. */
const countRange = (spec: Dict | undefined, floor: number, unlistedMax: number, cap: number): CountRange => ({
  min: Math.max(floor, num(spec?.min) ?? floor),
  max: Math.min(num(spec?.max) ?? unlistedMax, cap),
});

/** `number_results`: a model whose list gives no max takes one result (RULES.md, rule 1); never above the contract's 4. */
export const numberResultsRange = (spec: Dict | undefined): CountRange =>
  countRange(spec, NUMBER_RESULTS_MIN, NUMBER_RESULTS_UNLISTED_MAX, NUMBER_RESULTS_MAX);

/** How many `reference_images`: the contract's 3 caps the model's own max. */
export const referenceImagesRange = (spec: Dict | undefined): CountRange => countRange(spec, 0, REFERENCE_IMAGES_MAX, REFERENCE_IMAGES_MAX);
