import { SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

/**
 * Wraps a webhook receiver (`createWebhookHandler(...)`, any `(Request) => Promise<Response>`) in
 * a `mediagen.webhook.receive` span with the answer's status: 401 is a refused signature, 2xx a
 * verified and handled event. The signature header and the body are never recorded.
 */
export function traceWebhook(handler: (request: Request) => Promise<Response>, options: { tracer?: Tracer } = {}) {
  const tracer = options.tracer ?? trace.getTracer('@mediagen/opentelemetry');
  return (request: Request): Promise<Response> =>
    tracer.startActiveSpan('mediagen.webhook.receive', { kind: SpanKind.SERVER }, async (span) => {
      try {
        const response = await handler(request);
        span.setAttribute('http.response.status_code', response.status);
        if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      } finally {
        span.end();
      }
    });
}
