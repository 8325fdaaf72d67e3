import { ConnectionError, ServerError, TimeoutError } from '../errors';

/**
 * Whether a submit that ended with `error` may still have created a generation: its answer
 * never arrived (dropped connection, timeout) or was a 5xx that can follow an enqueue. Any other
 * answer (4xx, 429) means the service refused it. An abort is never one: `create` honours its
 * signal only up to the send point, so an `AbortError` out of it means nothing was sent.
 */
export function answerMayBeLost(error: unknown): boolean {
  return error instanceof ConnectionError || error instanceof TimeoutError || error instanceof ServerError;
}
