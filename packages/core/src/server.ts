/**
 * `@mediagen/core/server`: framework-neutral server pieces the adapters mount (Web `Request`
 * in, `Response` out): the webhook receiver with its de-duplication, and JSON routes for an
 * app's front end. A separate entry, so apps that only call the API don't bundle them.
 */
export { type ApiHandler, type ApiHandlerOptions, createApiHandler, DEFAULT_ALLOWED_PARAMS } from './server/api-handler';
export { type ErrorReply, errorReply, errorResponse } from './server/error-reply';
export { SubmitRefusedError, type SubmitRefusedInit } from './server/refusal';
export { isJsonContentType } from './util/body';
export { readEnv } from './util/env';
export { type DedupeClaim, MemoryDedupeStore, type MemoryDedupeStoreOptions, type WebhookDedupeStore } from './webhooks/dedupe';
export { createWebhookHandler, type WebhookContext, type WebhookHandler, type WebhookHandlerOptions } from './webhooks/handler';
export { isParsedBody, isRawBody, RAW_BODY_HELP, type RawBody } from './webhooks/raw-body';
export { type WebhookRefusalCode, webhookRefusal } from './webhooks/refusals';
