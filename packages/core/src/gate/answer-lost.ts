import { AbortError, ConnectionError, ServerError, TimeoutError } from '../errors';

/**
 * Whether a submit that ended with `error` may still have created a generation: its answer
 * never arrived (dropped connection, timeout, the caller's abort mid-request) or was a 5xx
 * that can follow an enqueue. Any other answer (4xx, 429) means the service refused it.
 */
export function answerMayBeLost(error: unknown): boolean {
  return error instanceof ConnectionError || error instanceof TimeoutError || error instanceof AbortError || error instanceof ServerError;
}
