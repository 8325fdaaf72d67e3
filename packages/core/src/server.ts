/**
 * `@mediagen/core/server`: the one server surface every adapter mounts (Web `Request` in,
 * `Response` out): the app's JSON routes, the live stream and the webhook receiver, under one
 * rule set. A separate entry, so apps that only call the API don't bundle it.
 */

export { DEFAULT_ALLOWED_PARAMS, type MediaGenActions, type SubmitInput } from './server/actions';
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
