/**
 * `@mediagen/core/server`: the one server surface every adapter mounts (Web `Request` in,
 * `Response` out): the app's JSON routes, the live stream and the webhook receiver, under one
 * rule set. A separate entry, so apps that only call the API don't bundle it.
 */

export { createMediaGenActions, DEFAULT_ALLOWED_PARAMS, type MediaGenActions, type SubmitInput } from './server/actions';
export { type ApiHandler, type ApiHandlerOptions, createApiHandler } from './server/api-handler';
export type { CorsOptions } from './server/cors';
export { isRefusedDelivery } from './server/default-on-error';
export { type ErrorReply, errorReply, errorResponse } from './server/error-reply';
export { statusRank } from './server/event-stream';
export { createMediaGenHandler, type MediaGenHandler } from './server/handler';
export { idFromCookie } from './server/id-cookie';
export type { MediaGenContext, MediaGenHandlerOptions, MediaGenWebhookContext, MediaGenWebhookOptions } from './server/options';
export { SubmitRefusedError, type SubmitRefusedInit } from './server/refusal';
export { routeError } from './server/route-error';
export type { RouteName } from './server/routes';
export type { GenerationPage, GenerationSource, SubmittedGeneration } from './server/source';
export type { StreamOptions } from './server/stream-hub';
export { isJsonContentType } from './util/body';
export { readEnv } from './util/env';
export { type DedupeClaim, MemoryDedupeStore, type MemoryDedupeStoreOptions, type WebhookDedupeStore } from './webhooks/dedupe';
export {
  /** The webhook receiver alone; `createMediaGenHandler({ webhook })` serves it with the other routes. */
  createWebhookHandler,
  type WebhookContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookVerifyInfo,
} from './webhooks/handler';
export { isParsedBody, isRawBody, RAW_BODY_HELP, type RawBody } from './webhooks/raw-body';
export { type WebhookRefusalCode, webhookRefusal } from './webhooks/refusals';
