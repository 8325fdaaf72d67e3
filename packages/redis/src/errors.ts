import { MediaGenError } from '@mediagen/core';

/**
 * Redis did not answer in time, refused the command, or lost its data. The message names
 * the operation, never the connection URL (which may carry a password).
 */
export class RedisStoreError extends MediaGenError {
  constructor(
    message: string,
    code: 'REDIS_UNAVAILABLE' | 'REDIS_DATA_LOST' | 'REDIS_MESSAGE_INVALID' = 'REDIS_UNAVAILABLE',
    cause?: unknown,
  ) {
    super(message, {
      code,
      // A message that is not an event stays one: nothing to retry.
      retryable: code !== 'REDIS_MESSAGE_INVALID',
      next: NEXT[code],
      cause: redact(cause),
    });
  }
}

const NEXT = {
  REDIS_UNAVAILABLE: 'Check that Redis is reachable; the operation can be retried.',
  REDIS_DATA_LOST:
    'Redis restarted without its data: webhooks are refused (and retried by the service, then recovered by polling) until every delivery chain that began before it has ended.',
  REDIS_MESSAGE_INVALID:
    'A message on the events channel was not an event this package publishes and was ignored (waits poll as usual). Give each app and account its own prefix, so no one else publishes on its channel.',
} as const;

/** Keeps only the class and message of a client error, with any URL credentials removed. */
function redact(cause: unknown): unknown {
  if (!(cause instanceof Error)) return undefined;
  const copy = new Error(cause.message.replace(/\/\/[^@/\s]*@/g, '//***@'));
  copy.name = cause.name;
  return copy;
}
