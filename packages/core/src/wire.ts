/**
 * `@mediagen/core/wire`: the service's wire types, constants and webhook signature scheme,
 * without the client. The emulator builds on this, so both sides of the wire share one definition.
 */
export * from './types';
export * from './limits';
export { signWebhook } from './webhooks/verify';
