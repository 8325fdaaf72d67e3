import { WebhookVerificationError } from '../errors';
import { errorCodeInfo } from '../wire/error-codes';

/**
 * The handler's `onError` when the app gives none. A server fault is logged whole (its stack
 * says where it happened). A webhook delivery refused 4xx (no or a bad signature, a body that is
 * not an event) is hostile or broken input, not a fault: one warning line with the refusal's code
 * and the SDK's fixed message, never the body, a header or a secret, and no stack.
 */
export function defaultOnError(error: unknown): void {
  if (error instanceof WebhookVerificationError && (errorCodeInfo(error.code)?.status ?? 500) < 500) {
    console.warn(`mediagen: refused a webhook delivery: ${error.code}: ${error.message}`);
    return;
  }
  console.error(error);
}
