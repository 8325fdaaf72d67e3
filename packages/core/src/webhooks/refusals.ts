import { ERROR_CODES } from '../wire/error-codes';

/**
 * What each receiver refusal means, for the person reading the delivery log. The status and
 * `next` hint are the error-code table's (`/wire`): one table for core's receiver and for the
 * adapters that must answer before it runs (a framework's body parser).
 */
const MESSAGES = {
  METHOD_NOT_ALLOWED: 'Webhook deliveries are POST requests.',
  WEBHOOK_CONTENT_TYPE: 'Webhook deliveries are application/json.',
  WEBHOOK_BODY_TOO_LARGE: 'The body is larger than this receiver accepts.',
  WEBHOOK_BODY_TIMEOUT: 'The body did not arrive before the deadline.',
  WEBHOOK_BODY_UNREADABLE: 'The body could not be read.',
  WEBHOOK_HANDLER_FAILED: "The app's handler failed.",
  WEBHOOK_HANDLER_TIMEOUT: "The app's handler did not finish in time.",
  WEBHOOK_IN_PROGRESS: 'The same event is being handled by another delivery.',
  WEBHOOK_DEDUPE_FAILED: 'The de-duplication store failed.',
} as const satisfies Partial<Record<keyof typeof ERROR_CODES, string>>;

export type WebhookRefusalCode = keyof typeof MESSAGES;

/** The receiver's answer for `code`: its status and the contract's error body (`error`, `message`, `next`, `request_id`). */
export function webhookRefusal(code: WebhookRefusalCode): Response {
  const { status, next } = ERROR_CODES[code];
  return refusalResponse(status, code, MESSAGES[code], next);
}

export function refusalResponse(status: number, code: string, message: string, next: string): Response {
  return Response.json({ error: code, message, next, request_id: null }, { status });
}
