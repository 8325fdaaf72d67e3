/**
 * `@mediagen/core/wire`: the service's wire types and constants alone, without the client.
 * The emulator builds on this, so both sides of the wire share one definition.
 */
export * from './types';
export * from './limits';
