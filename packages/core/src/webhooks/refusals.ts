/**
 * A webhook receiver's refusals: the status (4xx where a retry cannot help, 5xx so the service
 * retries) and what each means, for the person reading the delivery log. One table for core's
 * receiver and for the adapters that must answer before it runs (a framework's body parser).
 */
const REFUSALS = {
  METHOD_NOT_ALLOWED: [405, 'Webhook deliveries are POST requests.', 'Send a POST.'],
  WEBHOOK_CONTENT_TYPE: [415, 'Webhook deliveries are application/json.', 'Send the body as application/json.'],
  WEBHOOK_BODY_TOO_LARGE: [
    413,
    'The body is larger than this receiver accepts.',
    'Raise the receiver body limit if this is a real delivery.',
  ],
  WEBHOOK_BODY_TIMEOUT: [503, 'The body did not arrive before the deadline.', 'The service retries the delivery.'],
  WEBHOOK_BODY_UNREADABLE: [500, 'The body could not be read.', 'The service retries the delivery.'],
  WEBHOOK_HANDLER_FAILED: [500, "The app's handler failed.", 'The service retries the delivery.'],
  WEBHOOK_HANDLER_TIMEOUT: [503, "The app's handler did not finish in time.", 'The service retries the delivery.'],
  WEBHOOK_IN_PROGRESS: [503, 'The same event is being handled by another delivery.', 'The service retries the delivery.'],
  WEBHOOK_DEDUPE_FAILED: [500, 'The de-duplication store failed.', 'Check the store; the service retries the delivery.'],
} as const satisfies Record<string, readonly [status: number, message: string, next: string]>;

export type WebhookRefusalCode = keyof typeof REFUSALS;

/** The receiver's answer for `code`: its status and the contract's error body (`error`, `message`, `next`, `request_id`). */
export function webhookRefusal(code: WebhookRefusalCode): Response {
  const [status, message, next] = REFUSALS[code];
  return refusalResponse(status, code, message, next);
}

export function refusalResponse(status: number, code: string, message: string, next: string): Response {
  return Response.json({ error: code, message, next, request_id: null }, { status });
}
