/**
 * Wire constants. They mirror `HEADERS`, `API_PREFIX` and `WEBHOOK_USER_AGENT` of
 * `@mediagen/core` but are kept here as plain values so that the emulator never loads the
 * core bundle at run time (design.md: the emulator shares types with core, never the client).
 */
export const API_PREFIX = '/api/v1';
export const WEBHOOK_USER_AGENT = 'Service-Webhook/1.0';
export const KEY_PREFIX = 'svc_live_';

export const H = {
  requestId: 'x-request-id',
  idempotencyKey: 'idempotency-key',
  retryAfter: 'retry-after',
  rateLimitRemaining: 'x-ratelimit-remaining',
  creditsBalance: 'x-credits-balance',
  signature: 'x-service-signature',
  event: 'x-service-event',
  deliveryId: 'x-service-delivery-id',
} as const;

export const DAY_MS = 86_400_000;
export const LINK_TTL_MS = 3 * DAY_MS;
export const CYCLE_MS = 30 * DAY_MS;
export const PROMPT_MAX = 2000;
export const NEGATIVE_PROMPT_MAX = 500;
export const REFERENCE_IMAGES_MAX = 3;
export const NUMBER_RESULTS_MAX = 4;
export const ENHANCE_CREDITS = 20;
export const MAX_WEBHOOK_ENDPOINTS = 5;
