/**
 * A request to the app's routes that did not succeed, as a value (the hooks never throw): the
 * handler's error body (`error`, `message`, `next`, `request_id`) with its HTTP status, or
 * `NETWORK_ERROR` (status 0) when no answer came.
 */
export interface GenerationRequestError {
  /** The body's `error` code (`NOT_FOUND`, `INSUFFICIENT_CREDITS`, …), `NETWORK_ERROR`, or `HTTP_<status>` for a body without one. */
  code: string;
  message: string;
  /** What to do about it, from the contract's code table. */
  next: string | null;
  /** The `request_id` to quote in a support request; null when none was answered. */
  requestId: string | null;
  /** The HTTP status; 0 when the request never got an answer. */
  status: number;
  /** Whether sending the same request again may succeed (408, 409, 429, 5xx, network). */
  retryable: boolean;
  /** The answered body, for fields a code carries (`details.field`, `balance`, …). */
  body?: Record<string, unknown> | undefined;
}

const isRetryableStatus = (status: number) => status === 0 || status === 408 || status === 409 || status === 429 || status >= 500;

/** The error value for an answer that was not a success. */
export function requestErrorOf(status: number, statusText: string, body: unknown): GenerationRequestError {
  const b = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  return {
    code: typeof b?.error === 'string' ? b.error : `HTTP_${status}`,
    message: typeof b?.message === 'string' ? b.message : statusText || `HTTP ${status}`,
    next: typeof b?.next === 'string' ? b.next : null,
    requestId: typeof b?.request_id === 'string' ? b.request_id : null,
    status,
    retryable: isRetryableStatus(status),
    body: b,
  };
}

/** The error value for a request that got no answer (offline, DNS, a reset connection). */
export function networkError(error: unknown): GenerationRequestError {
  const message = error instanceof Error && error.message ? error.message : 'The request got no answer.';
  return { code: 'NETWORK_ERROR', message, next: 'Check the connection, then try again.', requestId: null, status: 0, retryable: true };
}

/** Whether asking again may change the answer: a refusal (404, 403, 422…) will not. */
export const isFinalRefusal = (error: GenerationRequestError): boolean => !error.retryable;
