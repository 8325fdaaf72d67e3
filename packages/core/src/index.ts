/**
 * `@mediagen/core`: what an app uses to call the service, and the service's wire types. Server
 * pieces live in `@mediagen/core/server` (and `/node`), the contract's constants and tables in
 * `/wire`, the ledger in `/ledger`, test switches in `/testing`. `@mediagen/core/internal` is not
 * public (see the README).
 */
export { type ClientOptions, DEFAULT_BASE_URL, MediaGenClient } from './client';
export * from './errors';
export type { TerminalEventListener } from './events/event-listener';
export { type GenerationEvents, MemoryGenerationEvents } from './events/generation-events';
export { Gate } from './gate/gate';
export {
  type GateGrant,
  type GateLimit,
  type GateLimits,
  type GateStore,
  type GateWait,
  MemoryGateStore,
  type MemoryGateStoreOptions,
} from './gate/store';
export type { Logger, LogLevel } from './http/log';
export { RESPONSE, type ResponseMeta, type WithResponse } from './http/response-meta';
export type { RequestHookInfo, RequestOptions, ResponseHookInfo, RetryInfo } from './http/transport';
export { SDK_VERSION } from './http/user-agent';
export { isExpired, type OutputLink, parseOutputLink } from './links/output-link';
export { creditsForQuality, creditsForReferences, type PriceQuote, quotePrice } from './params/pricing';
export type { ModelParamsRegistry, TypedGenerateParams } from './params/registry';
export { validateParams } from './params/validate';
export type { DownloadOptions, RunOptions, Submitted, WaitOptions } from './resources/generations';
export type {
  CompletedWebhookPayload,
  CreditsBand,
  CreditsSummary,
  ErrorBody,
  EstimateResponse,
  FailedWebhookPayload,
  GenerateParams,
  Generation,
  GenerationError,
  GenerationStatus,
  Model,
  ModelCategory,
  ModelKind,
  ModelList,
  ParamKey,
  ParamSpec,
  ParamSpecType,
  PricingSource,
  RateLimitInfo,
  SizeOption,
  SubmitResponse,
  TerminalStatus,
  WebhookEventType,
  WebhookPayload,
} from './types';
export {
  type GenerationCompletedEvent,
  type GenerationFailedEvent,
  type HeaderValue,
  signWebhook,
  type UnknownWebhookEvent,
  type VerifiedWebhookEvent,
  type VerifyWebhookInput,
  verifyWebhook,
  type WebhookEvent,
} from './webhooks/verify';
