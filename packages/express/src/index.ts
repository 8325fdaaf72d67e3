export { mediagenWebhook, type MediaGenWebhookOptions, type ExpressWebhookContext } from './webhook';
export { mediagenRouter, type MediaGenRouterOptions } from './router';
export { sendError } from './errors';
export type { BodyLimit } from './limit';
export { DEFAULT_ALLOWED_PARAMS, errorReply, type ErrorReply } from '@mediagen/core/server';
export type { WebhookEvent } from '@mediagen/core';
export type { WebhookDedupeStore } from '@mediagen/core/server';
