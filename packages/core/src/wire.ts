/**
 * `@mediagen/core/wire`: the service's wire types, constants and webhook signature scheme,
 * without the client. The emulator builds on this, so both sides of the wire share one definition.
 */

export * from './limits';
export * from './params/model-limits';
export * from './types';
export { signWebhook } from './webhooks/verify';
export * from './wire/error-codes';
export * from './wire/idempotency';
export * from './wire/links';
export * from './wire/output-links';
export * from './wire/params';
export * from './wire/paths';
export * from './wire/timing';
