/**
 * `@mediagen/react`: hooks for any React app (Vite, Remix, Next) over the routes of
 * `createMediaGenHandler`. The built file starts with `'use client'`. From core it takes types
 * and, at run time, only `@mediagen/core/wire` (route paths, polling intervals: plain data);
 * the SDK's client and its API key never reach a browser bundle.
 */

export type { GenerationEta } from '@mediagen/core/ledger';
export { type GenerationRequestError, networkError, requestErrorOf } from './errors';
export { type FollowCallbacks, type FollowOptions, followGeneration, type Transport } from './follow';
export { routeUrl } from './routes';
export { createSseParser, type SseMessage } from './sse';
export { createSubmissionKeys, paramsFingerprint } from './submission-keys';
export { readSubmitAnswer, type SubmitQueue } from './submit-stream';
export {
  type UploadedInput,
  type UploadFileOptions,
  type UploadProgress,
  type UploadResult,
  uploadFile,
  type WithFiles,
} from './upload';
export { type GenerateState, type StopResult, type UseGenerateOptions, useGenerate } from './use-generate';
export { type GenerationState, pollIntervalFor, type UseGenerationOptions, useGeneration } from './use-generation';
