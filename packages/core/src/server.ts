/**
 * `@mediagen/core/server`: the one server surface every adapter mounts (Web `Request` in,
 * `Response` out): the app's JSON routes, the live stream and the webhook receiver, under one
 * rule set. A separate entry, so apps that only call the API don't bundle it.
 */

export { type QueueGateStoreOptions, queueGateStore } from './gate/queue-store';
export { DEFAULT_ALLOWED_PARAMS, type MediaGenActions, type SubmitInput } from './server/actions';
export { type BudgetLimits, type BudgetOptions, type BudgetView, capsOf } from './server/budget/budget-guard';
export { BUDGET_FIELDS } from './server/budget/budget-refusal';
export {
  BUDGET_MINUTE_MS,
  type BudgetCaps,
  type BudgetLimitName,
  type BudgetReserveInput,
  type BudgetStore,
  type BudgetUsage,
  type BudgetVerdict,
  periodStart,
  refusedBy,
  usageOf,
} from './server/budget/budget-store';
export {
  type BudgetStoreTimes,
  DEFAULT_IN_FLIGHT_TTL_MS,
  DEFAULT_KEY_TTL_MS,
  MemoryBudgetStore,
} from './server/budget/memory-budget-store';
export { chargeOf, type EndedGeneration, settleBudget } from './server/budget/settle';
export type { CorsOptions } from './server/cors';
export { isRefusedDelivery } from './server/default-on-error';
export { type ErrorReply, errorReply, errorResponse } from './server/error-reply';
export { createMediaGenHandler, type DrainOptions, type DrainResult, type MediaGenHandler } from './server/handler';
export { idFromCookie } from './server/id-cookie';
export type { DirectUpload, MediaInfo, MediaStore } from './server/media-store';
export type { MediaGenContext, MediaGenHandlerOptions, MediaGenWebhookContext, MediaGenWebhookOptions } from './server/options';
export { SubmitRefusedError, type SubmitRefusedInit } from './server/refusal';
export type { RouteName } from './server/routes';
export type { GenerationPage, GenerationSource, SubmittedGeneration } from './server/source';
export type { StreamOptions } from './server/stream-hub';
export { type MediaInputs, type MediaInputsOptions, mediaInputs } from './server/uploads/media-inputs';
export { INPUT_LINK_SECONDS, INPUT_MIN_LIFE_SECONDS, type UploadedInput, type UploadOptions } from './server/uploads/uploads';
export { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from './server/webhook';
export type { BodyLimit } from './util/limit';
export { type DedupeClaim, MemoryDedupeStore, type MemoryDedupeStoreOptions, type WebhookDedupeStore } from './webhooks/dedupe';
export type { WebhookVerifyInfo } from './webhooks/handler';
