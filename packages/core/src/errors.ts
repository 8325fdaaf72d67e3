import { num, str } from './params/read';
import type { ErrorBody, Generation } from './types';
import { oneLine } from './util/one-line';

/**
 * Every error the SDK throws. Recognisable without `instanceof` too (`isMediaGenError`),
 * because an app that loads both the CJS and the ESM build holds two copies of each class.
 */
export class MediaGenError extends Error {
  readonly isMediaGenError = true as const;
  /**
   * The class's name, spelled out in each class: `new.target.name` would give an app's minified
   * identifier ('l') once its bundler renames the classes.
   */
  override name = 'MediaGenError';
  /** HTTP status, or undefined when no response was received. */
  declare readonly status: number | undefined;
  /** Service error code (`INSUFFICIENT_CREDITS`, …) or an SDK code (`CONNECTION_ERROR`, …). */
  declare readonly code: string;
  /** The service's recommended remediation, when it sent one. */
  declare readonly next: string | undefined;
  declare readonly requestId: string | undefined;
  /** Whether sending the same request again may succeed (spec: client retry guidance). */
  declare readonly retryable: boolean;
  /** The raw error body as received (bounded, and with the API key redacted should a proxy echo it). */
  declare readonly body: unknown;
  /**
   * Set on every error out of `generations.create` and `run`: the `Idempotency-Key` the submit
   * was sent with. Resend with `{ idempotencyKey: error.idempotencyKey }` and the service
   * answers with the same generation instead of billing a second one.
   */
  declare readonly idempotencyKey?: string;
  /** The generation concerned, when one is known (`run` failing while waiting, a failed generation). */
  declare readonly generationId?: string;

  constructor(
    message: string,
    init: {
      status?: number | undefined;
      code: string;
      next?: string | undefined;
      requestId?: string | undefined;
      retryable?: boolean;
      body?: unknown;
      cause?: unknown;
    },
  ) {
    // Messages built from foreign text (a response, a fetch failure) are bounded and redacted
    // where that text is read: the transport and `errorFromResponse`. (Kept out of here so
    // `verifyWebhook` alone stays small.) The same places make that text one inert line
    // (util/one-line).
    // Error reads only `cause` of its options (a present `cause: undefined` stays a non-enumerable own field).
    super(message, init);
    this.status = init.status;
    this.code = init.code;
    this.next = init.next;
    this.requestId = init.requestId;
    this.retryable = init.retryable ?? false;
    this.body = init.body;
  }

  /**
   * Every field an app may pass on (a subclass's own included: `balance`, `field`, `issues`,
   * `idempotencyKey`…), without the raw `body` and the brand.
   */
  toJSON(): Record<string, unknown> {
    const { body: _body, isMediaGenError: _brand, ...fields } = this;
    return { ...fields, message: this.message };
  }
}

export function isMediaGenError(value: unknown): value is MediaGenError {
  return typeof value === 'object' && value !== null && (value as { isMediaGenError?: unknown }).isMediaGenError === true;
}

type ApiErrorInit = ConstructorParameters<typeof MediaGenError>[1] & { body?: ErrorBody | unknown; retryAfterMs?: number | undefined };

/** An error answered by the service (any non-2xx). */
export class APIError extends MediaGenError {
  override name = 'APIError';
  /** The model slug on model-related errors. */
  declare readonly model: string | undefined;
  /**
   * How long to wait before resending, when the service (`Retry-After`) or the contract names a
   * wait: 409, 429, `PROVIDER_DOWN`, `SAFETY_CHECK_UNAVAILABLE`. Past 10 minutes the SDK does not
   * resend by itself; this holds the whole wait.
   */
  declare readonly retryAfterMs: number | undefined;
  constructor(message: string, init: ApiErrorInit) {
    super(message, init);
    this.model = str((init.body as ErrorBody | undefined)?.model);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 401: the key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}

/** 402 INSUFFICIENT_CREDITS. */
export class InsufficientCreditsError extends APIError {
  override name = 'InsufficientCreditsError';
  declare readonly balance: number | undefined;
  declare readonly needed: number | undefined;
  constructor(message: string, init: ApiErrorInit) {
    super(message, init);
    const body = init.body as ErrorBody | undefined;
    this.balance = num(body?.balance);
    this.needed = num(body?.needed);
  }
}

/** 403: tier, allowlist, kill switch or account state. `until` is set on temporary bans and freezes. */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
  declare readonly until: Date | undefined;
  constructor(message: string, init: ApiErrorInit) {
    super(message, init);
    // An absent or unreadable date is an Invalid Date, kept as undefined.
    const date = new Date(str((init.body as ErrorBody | undefined)?.until) ?? '');
    this.until = Number.isNaN(date.getTime()) ? undefined : date;
  }
}

/** 404 NOT_FOUND (and the earlier 403 NOT_YOURS): unknown id, or another account's. */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}

/** 409 IDEMPOTENT_REQUEST_IN_FLIGHT. */
export class ConflictError extends APIError {
  override name = 'ConflictError';
}

/** 400 and 422: the request as sent will never succeed. `field` names the offending param when known. */
export class InvalidRequestError extends APIError {
  override name = 'InvalidRequestError';
  declare readonly field: string | undefined;
  constructor(message: string, init: ApiErrorInit) {
    super(message, init);
    const body = init.body as ErrorBody | undefined;
    this.field = str(body?.details?.field) ?? str(body?.field);
  }
}

/** 429 RATE_LIMIT or CONCURRENCY_LIMIT. */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /** How long the service asked to wait (`Retry-After`, whole), or the spec's 5 s default. */
  declare readonly retryAfterMs: number;
  declare readonly inFlight: number | undefined;
  declare readonly maxConcurrent: number | undefined;
  constructor(message: string, init: ApiErrorInit & { retryAfterMs: number }) {
    super(message, init);
    const body = init.body as ErrorBody | undefined;
    this.inFlight = num(body?.in_flight);
    this.maxConcurrent = num(body?.max_concurrent);
  }
}

/** 5xx: the service (or a proxy in front of it) failed. */
export class ServerError extends APIError {
  override name = 'ServerError';
}

/** No response: DNS, TCP, TLS or a dropped connection. */
export class ConnectionError extends MediaGenError {
  override name = 'ConnectionError';
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'CONNECTION_ERROR', retryable: true, cause });
  }
}

/** An attempt ran past `timeoutMs`, or `wait()` ran past its deadline. */
export class TimeoutError extends MediaGenError {
  override name = 'TimeoutError';
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'TIMEOUT', retryable: true, cause });
  }
}

/** The caller's `AbortSignal` fired. Nothing more is sent for this call. */
export class AbortError extends MediaGenError {
  override name = 'AbortError';
  constructor(message = 'Aborted by its AbortSignal.', cause?: unknown) {
    super(message, { code: 'ABORTED', cause });
  }
}

/** A bad client option or argument, found before anything was sent. */
export class ConfigurationError extends MediaGenError {
  override name = 'ConfigurationError';
  constructor(message: string) {
    super(message, { code: 'CONFIGURATION_ERROR' });
  }
}

export interface ParamsIssue {
  field: string;
  code: string;
  message: string;
}

/** Params that the model's own schema rejects; thrown before any request is sent. */
export class ParamsValidationError extends MediaGenError {
  override name = 'ParamsValidationError';
  declare readonly issues: ParamsIssue[];
  declare readonly model: string;
  constructor(model: string, issues: ParamsIssue[]) {
    const list = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
    super(`Invalid params for model "${model}": ${list}`, {
      code: 'PARAMS_INVALID',
      next: 'client.models.list() says what each model accepts.',
    });
    this.issues = issues;
    this.model = model;
  }
}

/** A generation reached `failed` (an asynchronous failure, not an HTTP error). */
export class GenerationFailedError extends MediaGenError {
  override name = 'GenerationFailedError';
  declare readonly generation: Generation;
  constructor(generation: Generation) {
    const error = generation.error;
    // The payload is the service's (or, from a webhook, any signed sender's): nothing in it is
    // assumed to be a string, and what is quoted is one inert line (util/one-line).
    const code = oneLine(str(error?.code)?.slice(0, 100) ?? 'unknown');
    const detail = str(error?.message);
    const retryable = error?.retryable === true;
    // CONTENT_POLICY_VIOLATION is the one failure whose charge is kept (spec: States, fact 3).
    const forfeited = code === 'CONTENT_POLICY_VIOLATION';
    super(
      oneLine(`Generation ${str(generation.generation_id)} failed: ${code}${detail ? ` (${detail.slice(0, 500)})` : ''}`) +
        (forfeited ? '; credits forfeited (flagged by safety review)' : ''),
      {
        code,
        retryable,
        requestId: oneLine(str(generation.request_id)),
        body: generation,
        next: retryable ? 'May succeed if resubmitted.' : 'Resubmitting as is fails (and bills) again.',
      },
    );
    this.generation = generation;
    (this as { generationId?: string }).generationId = str(generation.generation_id);
  }
  /** True when the charge was kept (CONTENT_POLICY_VIOLATION) rather than refunded. */
  get creditsForfeited(): boolean {
    return this.code === 'CONTENT_POLICY_VIOLATION';
  }
}

/** A webhook delivery that is not authentic or not readable. */
export class WebhookVerificationError extends MediaGenError {
  override name = 'WebhookVerificationError';
  constructor(message: string, code = 'WEBHOOK_SIGNATURE_INVALID', next?: string) {
    super(message, { code, next });
  }
}
