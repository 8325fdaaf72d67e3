/**
 * `@mediagen/core/server`: framework-neutral server pieces the adapters mount (Web `Request`
 * in, `Response` out): the webhook receiver with its de-duplication, and JSON routes for an
 * app's front end. A separate entry, so apps that only call the API don't bundle them.
 */
export { handleWebhook, type HandleWebhookOptions, type WebhookContext } from './webhooks/handler';
export { MemoryDedupeStore, type WebhookDedupeStore, type DedupeClaim, type MemoryDedupeStoreOptions } from './webhooks/dedupe';
export { createApiHandler, DEFAULT_ALLOWED_PARAMS, type ApiHandler, type ApiHandlerOptions } from './server/api-handler';
export { errorReply, errorResponse, type ErrorReply } from './server/error-reply';
export { isJsonContentType } from './util/body';
