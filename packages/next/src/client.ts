/**
 * `@mediagen/next/client`: React hooks for client components, re-exported from
 * `@mediagen/react` (one implementation for every React app): `useGeneration` follows a
 * generation by the handler's event stream (polling only when the stream cannot serve),
 * `useGenerate` submits with one idempotency key per submission (its place in the app's gate
 * line while it waits: `queue`; `stop()`). The built file starts with
 * `'use client'` (a tsup banner); at run time it takes only `@mediagen/react`, which takes only
 * `@mediagen/core/wire` from core: the SDK's client never reaches the browser bundle.
 */

export {
  followGeneration,
  type GenerateState,
  type GenerationEta,
  type GenerationRequestError,
  type GenerationState,
  pollIntervalFor,
  routeUrl,
  type StopResult,
  type SubmitQueue,
  type UploadedInput,
  type UploadProgress,
  type UseGenerateOptions,
  type UseGenerationOptions,
  uploadFile,
  useGenerate,
  useGeneration,
  type WithFiles,
} from '@mediagen/react';
