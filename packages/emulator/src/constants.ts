/** The wire's names, the spec's limits and the signature scheme come from core's client-free `wire` entry. */
export {
  API_PREFIX,
  ENHANCE_CREDITS,
  HEADERS as H,
  NEGATIVE_PROMPT_MAX,
  NUMBER_RESULTS_MAX,
  PROMPT_MAX,
  REFERENCE_IMAGES_MAX,
  signWebhook,
  WEBHOOK_USER_AGENT,
} from '@mediagen/core/wire';
export const KEY_PREFIX = 'svc_live_';

export const DAY_MS = 86_400_000;
export const LINK_TTL_MS = 3 * DAY_MS;
export const CYCLE_MS = 30 * DAY_MS;
export const MAX_WEBHOOK_ENDPOINTS = 5;
