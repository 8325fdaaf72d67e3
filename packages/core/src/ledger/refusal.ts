import { APIError, isMediaGenError, ParamsValidationError } from '../errors';
import type { GenerationError } from '../types';
import { isDocumentedStatus } from '../wire/error-codes';

/**
 * Whether a failed submit proves that the service refused it, so nothing was billed and the
 * intent may end. Only two kinds do: the contract's own 4xx refusal (a code of the contract's
 * table answered with that code's 4xx status and not marked retryable), and a check made before
 * anything was sent (the params against the model's schema). Everything else leaves the intent
 * to be resent with its own key: a 2xx whose body is unusable (the service accepted, and billed,
 * it), a body cut off, a proxy's page, a 5xx, a timeout, an abort, a code the table lacks.
 */
export function provesRefusal(error: unknown): boolean {
  if (error instanceof ParamsValidationError) return true;
  if (!(error instanceof APIError) || error.retryable) return false;
  const status = error.status ?? 0;
  return status >= 400 && status < 500 && isDocumentedStatus(error.code, status);
}

/** The refusal as the record keeps it (a contract refusal is never retryable as sent). */
export function refusalOf(error: unknown): GenerationError {
  const e = isMediaGenError(error) ? error : undefined;
  return { code: e?.code ?? 'REFUSED', message: e?.message ?? '', retryable: false };
}
