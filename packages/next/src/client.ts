/**
 * `@mediagen/next/client`: React hooks for client components. The built file starts with
 * `'use client'` (a tsup banner). Only types come from core: nothing of the SDK is bundled here.
 */

export {
  type GenerationRequestError,
  type GenerationState,
  pollIntervalFor,
  type UseGenerationOptions,
  useGeneration,
} from './use-generation';
