export { mediagenWebhook, type MediaGenWebhookOptions, type ExpressWebhookContext } from './webhook';
export { mediagenRouter, DEFAULT_ALLOWED_PARAMS, type MediaGenRouterOptions } from './router';
export { toErrorReply, sendError, type ErrorReply } from './errors';
export type { BodyLimit } from './limit';
export type { WebhookEvent, WebhookDedupeStore } from '@mediagen/core';
