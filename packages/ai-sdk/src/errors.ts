import { APICallError, InvalidArgumentError, LoadAPIKeyError } from '@ai-sdk/provider';
import { isMediaGenError, type MediaGenError } from '@mediagen/core';

/** Where a call went, for the AI SDK's `APICallError` (`url`, `requestBodyValues`). */
export interface CallSite {
  url: string;
  body: unknown;
}

/**
 * What the service said, kept on `APICallError.data`: the code to branch on, the contract's
 * retry guidance, and the idempotency key a resend must reuse so it is not billed twice.
 */
export interface MediaGenErrorData {
  code: string;
  next: string | undefined;
  requestId: string | undefined;
  /** The service's own guidance: resending the same request may succeed. */
  retryable: boolean;
  /** Resend with `providerOptions.mediagen.idempotencyKey` set to this: no second charge. */
  idempotencyKey: string | undefined;
  generationId: string | undefined;
}

const dataOf = (e: MediaGenError): MediaGenErrorData => ({
  code: e.code,
  next: e.next,
  requestId: e.requestId,
  retryable: e.retryable,
  idempotencyKey: e.idempotencyKey,
  generationId: e.generationId,
});

/**
 * A MediaGen error as the AI SDK's error type. Every `APICallError` is `isRetryable: false`:
 * the MediaGen client has already made the contract's retries (up to 5 attempts, one
 * idempotency key), and a retry by the AI SDK would be a new call with a new key, which the
 * service bills as a second generation. The service's own verdict is on `data.retryable`.
 * An abort stays the client's `AbortError` (the AI SDK recognises it by name).
 */
export function toAISDKError(error: unknown, site: CallSite): unknown {
  if (!isMediaGenError(error)) return error;
  if (error.name === 'AbortError') return error;
  if (error.name === 'ParamsValidationError') {
    const issues = (error as MediaGenError & { issues: Array<{ field: string }> }).issues;
    return new InvalidArgumentError({ argument: issues[0]?.field ?? 'params', message: error.message, cause: error });
  }
  if (error.name === 'ConfigurationError' && /api key/i.test(error.message)) {
    return new LoadAPIKeyError({ message: error.message });
  }
  if (error.name === 'ConfigurationError') return new InvalidArgumentError({ argument: 'settings', message: error.message, cause: error });
  return new APICallError({
    message: error.message,
    url: site.url,
    requestBodyValues: site.body,
    statusCode: error.status,
    responseHeaders: error.requestId ? { 'x-request-id': error.requestId } : undefined,
    responseBody: error.body === undefined ? undefined : JSON.stringify(error.body),
    isRetryable: false,
    data: dataOf(error),
    cause: error,
  });
}
