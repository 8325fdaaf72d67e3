import { isMediaGenError, MediaGenError } from '../errors';
import { cap, redact, sanitizeCause } from '../util/redact';

/**
 * Records which submit (and generation) an error belongs to, as it passes out of
 * `create`/`run`/`wait`; what is already set is kept. Anything that is not an SDK error is wrapped,
 * so the caller always gets a `MediaGenError` carrying the key.
 */
export function attachSubmit(
  error: unknown,
  context: { idempotencyKey?: string | undefined; generationId?: string | undefined },
): MediaGenError {
  const target = isMediaGenError(error)
    ? error
    : new MediaGenError(redact(cap(`Unexpected failure: ${String((error as Error | null)?.message ?? error)}`, 500)), {
        code: 'UNEXPECTED',
        cause: sanitizeCause(error),
      });
  const writable = target as { idempotencyKey?: string; generationId?: string };
  if (context.idempotencyKey !== undefined) writable.idempotencyKey ??= context.idempotencyKey;
  if (context.generationId !== undefined) writable.generationId ??= context.generationId;
  return target;
}
