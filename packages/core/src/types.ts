/**
 * Wire types of the service (api-spec.md). Field names keep the wire's snake_case.
 * Every object type is open (`[key: string]: unknown`) because the contract only ever
 * adds fields within v1 and clients must keep and ignore unknown ones (Versioning 5).
 */

import {
  CREDITS_BALANCE_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  RATE_LIMIT_REMAINING_HEADER,
  REQUEST_ID_HEADER,
  RETRY_AFTER_HEADER,
} from './http/header-names';
import type { PARAM_KEYS } from './wire/params';

type Open = { [key: string]: unknown };

export type GenerationStatus = 'pending' | 'processing' | 'completed' | 'failed';
export type TerminalStatus = 'completed' | 'failed';

/** The `error` of a failed generation. An earlier form sent a bare string code. */
export interface GenerationError extends Open {
  code: string;
  message: string;
  retryable: boolean;
}

export interface Generation extends Open {
  generation_id: string;
  status: GenerationStatus;
  model: string;
  output_url: string | null;
  output_urls: string[] | null;
  /** The reservation until terminal; the final charge once terminal. */
  credits_used: number;
  duration_ms: number | null;
  created_at: string;
  completed_at: string | null;
  request_id: string;
  /** Present only when `status` is `failed`. Normalised to the object form by the client. */
  error?: GenerationError;
}

export type PricingSource = 'user_override' | 'global_dynamic' | 'catalog_default';

/** The 202 body of `POST /api/v1/generate`. */
export interface SubmitResponse extends Open {
  generation_id: string;
  status: 'pending';
  model: string;
  credits_estimate: number;
  pricing_source: PricingSource;
  created_at: string;
  request_id: string;
}

/**
 * The answer to `estimate: true`. Its shape is not part of the published contract, so every
 * field is optional; `credits_estimate` is what the service has been seen to answer.
 */
export interface EstimateResponse extends Open {
  /** The exact cost (the SDK refuses an answer without it). */
  credits_estimate: number;
  pricing_source?: PricingSource;
  model?: string;
  request_id?: string;
}

/** Body of `POST /api/v1/generate`. */
export interface GenerateParams extends Open {
  model: string;
  prompt?: string;
  negative_prompt?: string;
  aspect_ratio?: string;
  size?: string;
  quality?: string;
  resolution?: string;
  duration?: number;
  audio?: boolean;
  input_image?: string;
  input_video?: string;
  input_audio?: string;
  reference_images?: string[];
  seed?: number;
  number_results?: number;
  enhance?: boolean;
}

export type ModelCategory = 'image' | 'video' | 'audio' | 'text' | 'utility' | 'threed';
export type ModelKind = 'image' | 'video' | 'audio' | 'text';

/** `integer` and `string` are the earlier forms of the list; clients tolerate them. */
export type ParamSpecType = 'string' | 'enum' | 'number' | 'integer' | 'boolean' | 'string[]';

export interface SizeOption extends Open {
  size: string;
  tag?: string;
  label?: string;
}

export interface ParamSpec extends Open {
  type: ParamSpecType;
  required?: boolean;
  values?: Array<string | number>;
  default?: string | number | boolean;
  min?: number;
  max?: number;
  /** Earlier form: `type: "string"` with `max_length`. */
  max_length?: number;
  presets_only?: boolean;
  options?: SizeOption[];
  values_by_quality?: Record<string, string[]>;
}

/** A key of a model's `params` schema; the list itself is `PARAM_KEYS` (`wire/params`). */
export type ParamKey = (typeof PARAM_KEYS)[number];

export interface CreditsBand extends Open {
  min: number;
  max: number;
  flat: boolean;
}

export interface Model extends Open {
  slug: string;
  name: string;
  category: ModelCategory;
  kind: ModelKind;
  creator: string;
  description: string;
  modes: string[];
  params: Partial<Record<ParamKey, ParamSpec>>;
  prompt_max_chars?: number;
  credits_band: CreditsBand;
  credits_from?: number;
  credits_by_quality?: Record<string, number>;
  credits_by_references?: Record<string, number>;
  video_matrix?: { dimensions: Record<string, Record<string, string>> } & Open;
  enhance_supported: boolean;
  example_request: GenerateParams;
  /**
   * Not in the contract's field list (a response field added within v1): `false` on a model whose
   * inputs the API cannot shape, whose submits answer `422 MODEL_NOT_API_SUPPORTED`. The emulator
   * publishes it; absent (as from the service today) means nothing is known: the submit decides.
   */
  api_supported?: boolean;
}

export interface RateLimitInfo extends Open {
  per_minute: number;
  max_concurrent: number;
}

/** `GET /api/v1/models`. */
export interface ModelList extends Open {
  tier: string;
  credits_balance: number;
  rate_limit: RateLimitInfo;
  request_id: string;
  models: Model[];
}

/** `GET /api/v1/credits`. */
export interface CreditsSummary extends Open {
  balance: number;
  tier: string;
  cycle_resets_at: string | null;
  rate_limit: RateLimitInfo;
  spent_this_cycle: number;
  granted_this_cycle: number;
  request_id: string;
}

/** A non-2xx body. Only `error` is reliable; the rest depends on the code. */
export interface ErrorBody extends Open {
  error: string;
  message?: string;
  next?: string;
  request_id?: string;
  model?: string;
  details?: { field?: string } & Open;
  /** Earlier form (`INVALID_PARAMS`). */
  field?: string;
  reason?: string;
  balance?: number;
  needed?: number;
  in_flight?: number;
  max_concurrent?: number;
  until?: string;
  category?: string;
}

export type WebhookEventType = 'generation.completed' | 'generation.failed';

interface WebhookPayloadBase extends Open {
  /** Identical across all attempts of the same event: the de-duplication key. */
  generation_id: string;
  model: string;
  credits_charged: number;
  duration_ms: number;
  completed_at: string;
}

/** Body of a `generation.completed` delivery. */
export interface CompletedWebhookPayload extends WebhookPayloadBase {
  status: 'completed';
  /** Signed link, valid 3 days after completion; poll the status endpoint for a fresh one. */
  output_url: string;
  output_urls: string[];
}

/** Body of a `generation.failed` delivery. */
export interface FailedWebhookPayload extends WebhookPayloadBase {
  status: 'failed';
  output_url: null;
  output_urls: null;
  error_code: string;
  error_message: string;
  /** True when resubmitting the same request may succeed. */
  retryable: boolean;
}

/** Body of a webhook delivery: narrow on `status` (or on the event's `type`). */
export type WebhookPayload = CompletedWebhookPayload | FailedWebhookPayload;

/** Async failure codes the spec names; the list is open. */
export const CONTENT_POLICY_VIOLATION = 'CONTENT_POLICY_VIOLATION';

/** Header names, with the neutral word the spec uses in place of the brand. */
export const HEADERS = {
  requestId: REQUEST_ID_HEADER,
  idempotencyKey: IDEMPOTENCY_KEY_HEADER,
  retryAfter: RETRY_AFTER_HEADER,
  rateLimitRemaining: RATE_LIMIT_REMAINING_HEADER,
  creditsBalance: CREDITS_BALANCE_HEADER,
  signature: 'x-service-signature',
  event: 'x-service-event',
  deliveryId: 'x-service-delivery-id',
} as const;

export const API_PREFIX = '/api/v1';
export const WEBHOOK_USER_AGENT = 'Service-Webhook/1.0';
