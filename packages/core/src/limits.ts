/** Contract-wide limits (spec: Limits). A model's own, lower values apply first. */
export const PROMPT_MAX = 2000;
export const NEGATIVE_PROMPT_MAX = 500;
export const REFERENCE_IMAGES_MAX = 3;
export const NUMBER_RESULTS_MAX = 4;
/** The flat price of the `enhance` pass, on top of `credits_estimate`. */
export const ENHANCE_CREDITS = 20;
