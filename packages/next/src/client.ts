/**
 * `@mediagen/next/client`: React hooks for client components. The built file starts with
 * `'use client'` (a tsup banner). From core it takes types and, at run time, only
 * `@mediagen/core/wire` (the contract's polling intervals: plain data, no client, no `node:`
 * module); the SDK's client never reaches the browser bundle.
 */

export {
  type GenerationRequestError,
  type GenerationState,
  pollIntervalFor,
  type UseGenerationOptions,
  useGeneration,
} from './use-generation';
