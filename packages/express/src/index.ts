export type { WebhookEvent } from '@mediagen/core';
export type { BodyLimit } from '@mediagen/core/node';
export {
  DEFAULT_ALLOWED_PARAMS,
  type ErrorReply,
  errorReply,
  SubmitRefusedError,
  type WebhookDedupeStore,
} from '@mediagen/core/server';
export { sendError } from './errors';
export { type MediaGenRouterOptions, mediagenRouter } from './router';
export { type ExpressWebhookContext, type MediaGenWebhookOptions, mediagenWebhook } from './webhook';
