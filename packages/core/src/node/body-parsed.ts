import { WebhookVerificationError } from '../errors';
import { RAW_BODY_HELP } from '../webhooks/raw-body';
import { ERROR_CODES } from '../wire/error-codes';

/**
 * A webhook whose body another middleware already parsed: its exact bytes are gone, so it can
 * never verify. The app's mount order is wrong; a 5xx (the code table's) keeps the delivery
 * alive for a retry once it is fixed.
 */
export function bodyParsedError(): WebhookVerificationError {
  return new WebhookVerificationError(
    `The request body was already parsed by another middleware, so its exact bytes are gone. ${RAW_BODY_HELP}`,
    'WEBHOOK_BODY_PARSED',
    ERROR_CODES.WEBHOOK_BODY_PARSED.next,
  );
}
