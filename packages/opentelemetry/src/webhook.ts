import type { WebhookHandlerOptions, WebhookVerifyInfo } from '@mediagen/core/server';
import { type Attributes, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { tracerOf } from './tracer';

/**
 * Wraps a webhook receiver (`createWebhookHandler(...)`, any `(Request) => Promise<Response>`) in
 * a `mediagen.webhook.receive` span with the answer's status: 401 is a refused signature, 2xx a
 * verified and handled event. The signature header and the body are never recorded. Give the
 * receiver `webhookTelemetry()` too, and its signature check is a child span of this one.
 */
export function traceWebhook(handler: (request: Request) => Promise<Response>, options: { tracer?: Tracer } = {}) {
  const tracer = tracerOf(options.tracer);
  return (request: Request): Promise<Response> =>
    tracer.startActiveSpan('mediagen.webhook.receive', { kind: SpanKind.SERVER }, async (span) => {
      try {
        const response = await handler(request);
        span.setAttribute('http.response.status_code', response.status);
        if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      } catch (error) {
        // No answer at all is a failed receive. The code or class only: a message may carry anything.
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
        throw error;
      } finally {
        span.end();
      }
    });
}

/**
 * Receiver options that record each signature check as a `mediagen.webhook.verify` span, a child
 * of the span active for the delivery (`traceWebhook`'s `mediagen.webhook.receive`, or your
 * server's): `createWebhookHandler({ secrets, onEvent, ...webhookTelemetry() })`, and the same
 * spread into any adapter's options. Attributes: the event type, generation id and delivery id
 * of a verified event; a refused one sets the span's status to the error's code. Never a
 * secret, the signature or the body.
 */
export function webhookTelemetry(options: { tracer?: Tracer } = {}): Pick<WebhookHandlerOptions, 'onVerify'> {
  const tracer = tracerOf(options.tracer);
  return {
    onVerify: ({ event, error, startedAt, elapsedMs }: WebhookVerifyInfo) => {
      // Made once the check is over (the receiver reports it then), with the check's own times.
      const attributes: Attributes = { 'mediagen.webhook.verified': event !== undefined };
      if (event) {
        attributes['mediagen.webhook.event_type'] = event.type;
        const id = (event.data as { generation_id?: unknown } | undefined)?.generation_id;
        if (typeof id === 'string') attributes['mediagen.generation_id'] = id;
        // Not signed: anyone replaying a genuine body can send any text here. Recorded only in the
        // shape the service sends (a UUID), so no span carries what a sender made up.
        if (event.deliveryId && UUID.test(event.deliveryId)) attributes['mediagen.webhook.delivery_id'] = event.deliveryId;
      }
      const span = tracer.startSpan('mediagen.webhook.verify', { kind: SpanKind.INTERNAL, attributes, startTime: startedAt });
      if (error !== undefined) {
        // The code only (WEBHOOK_SIGNATURE_INVALID…): a message is never recorded.
        const code = (error as { code?: unknown } | null)?.code;
        span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : 'error' });
      }
      span.end(startedAt + elapsedMs);
    },
  };
}

/** `X-Service-Delivery-Id` as the service sends it (spec: a UUID, new on every attempt). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A `MediaGenError`'s code, else the error's class name: never its message. */
function errorName(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}
