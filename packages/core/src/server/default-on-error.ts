import { WebhookVerificationError } from '../errors';
import { errorCodeInfo } from '../wire/error-codes';

/**
 * The handler's `onError` when the app gives none. A server fault is logged whole (its stack
 * says where it happened). A webhook delivery refused 4xx (no or a bad signature, a body that is
 * not an event) is hostile or broken input, not a fault: one warning line with the refusal's code
 * and the SDK's fixed message, never the body, a header or a secret, and no stack.
 */
export function defaultOnError(error: unknown): void {
  if (isRefusedDelivery(error)) {
    console.warn(`mediagen: refused a webhook delivery: ${error.code}: ${error.message}`);
    return;
  }
  console.error(error);
}

/**
 * A webhook delivery the receiver refused 4xx (no or a bad signature, a body that is not an
 * event): hostile or broken input to log as a warning, not a server fault. Adapters with their
 * own logger (Nest's) sort errors by it too.
 */
export function isRefusedDelivery(error: unknown): error is WebhookVerificationError {
  return error instanceof WebhookVerificationError && (errorCodeInfo(error.code)?.status ?? 500) < 500;
}
