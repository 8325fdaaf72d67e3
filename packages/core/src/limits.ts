/** Contract-wide limits (spec: Limits). A model's own, lower values apply first. */
export const PROMPT_MAX = 2000;
export const NEGATIVE_PROMPT_MAX = 500;
export const REFERENCE_IMAGES_MAX = 3;
export const NUMBER_RESULTS_MAX = 4;
export { ENHANCE_CREDITS } from './wire/params';
/** The smallest `number_results`; a model's list gives its own max (spec: Limits). */
export const NUMBER_RESULTS_MIN = 1;
/**
 * The `number_results` max of a model whose list entry gives none (no `number_results` spec,
 * or one without `max`): one result, the count every model takes (RULES.md, rule 1).
 */
export const NUMBER_RESULTS_UNLISTED_MAX = 1;
/** A seed's range when the model lists none: an unsigned 32-bit integer (RULES.md, rule 3). */
export const SEED_MIN = 0;
export const SEED_MAX = 4_294_967_295;
/** Signed output links stay valid this long after the response that carries them (spec: Output links). */
export const OUTPUT_LINK_TTL_MS = 3 * 86_400_000;
/** Webhook endpoints per account (spec: Limits). */
export const WEBHOOK_ENDPOINTS_MAX = 5;
/** Every API key starts with this (spec: Authentication 2, written `svc_live_<secret>`). */
export const API_KEY_PREFIX = 'svc_live_';
