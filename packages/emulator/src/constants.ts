/** The wire's names, the spec's limits and the signature scheme come from core's client-free `wire` entry. */

// Signed without loading the client (the root entry's `signWebhook`, shared through core's internal entry).
export { signWebhook } from '@mediagen/core/internal';
export {
  API_KEY_PREFIX as KEY_PREFIX,
  API_PREFIX,
  ENHANCE_CREDITS,
  effectiveLimits,
  HEADERS as H,
  INPUT_FIELDS,
  NEGATIVE_PROMPT_MAX,
  OUTPUT_LINK_TTL_MS as LINK_TTL_MS,
  type OutputLinkParts,
  outputLinkPath,
  PARAM_KEYS,
  PROMPT_MAX,
  parseOutputLinkSegments,
  SEED_MAX,
  SEED_MIN,
  SIZE_PATTERN,
  SUBMIT_FIELDS,
  splitRatioTag,
  WEBHOOK_ENDPOINTS_MAX as MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_USER_AGENT,
} from '@mediagen/core/wire';

export const DAY_MS = 86_400_000;
/** The credit cycle (spec: "per 30-day cycle"). */
export const CYCLE_MS = 30 * DAY_MS;
