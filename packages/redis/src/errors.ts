import { MediaGenError } from '@mediagen/core';

/**
 * Redis did not answer in time, refused the command, or lost its data. The message names
 * the operation, never the connection URL (which may carry a password).
 */
export class RedisStoreError extends MediaGenError {
  constructor(message: string, code: 'REDIS_UNAVAILABLE' | 'REDIS_DATA_LOST' = 'REDIS_UNAVAILABLE', cause?: unknown) {
    super(message, {
      code,
      retryable: true,
      next:
        code === 'REDIS_DATA_LOST'
          ? 'Redis restarted without its data: webhooks are refused (and retried by the service, then recovered by polling) until every delivery chain that began before it has ended.'
          : 'Check that Redis is reachable; the operation can be retried.',
      cause: redact(cause),
    });
  }
}

/** Keeps only the class and message of a client error, with any URL credentials removed. */
function redact(cause: unknown): unknown {
  if (!(cause instanceof Error)) return undefined;
  const copy = new Error(cause.message.replace(/\/\/[^@/\s]*@/g, '//***@'));
  copy.name = cause.name;
  return copy;
}
