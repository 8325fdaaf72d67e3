/**
 * `@mediagen/core/wire`: the service's constants, limits, tables and link shapes (its types are the root's),
 * without the client. The emulator builds on this, so both sides of the wire share one definition.
 */

export * from './limits';
export * from './params/model-limits';
// The wire's types are the root entry's (`import type { Generation } from '@mediagen/core'`: erased, so no client is bundled).
export { API_PREFIX, CONTENT_POLICY_VIOLATION, HEADERS, WEBHOOK_USER_AGENT } from './types';
export * from './wire/emulator';
export * from './wire/error-codes';
export * from './wire/idempotency';
export * from './wire/links';
export * from './wire/media';
export * from './wire/output-links';
export * from './wire/params';
export * from './wire/paths';
export * from './wire/submit-events';
export * from './wire/timing';
