/**
 * `@mediagen/opentelemetry`: OpenTelemetry spans for the MediaGen client, its webhook receiver
 * and its generation ledger. One span per call (`mediagen.generations.create`, `.get`, `.wait`,
 * `.run`) and, nested under it, one per HTTP attempt (`mediagen.http POST /api/v1/generate`,
 * with `mediagen.attempt`); `mediagen.webhook.receive` with its `mediagen.webhook.verify`;
 * `mediagen.ledger.reconcile` per reconciler pass. Built on the options core offers any
 * observer (`fetch`, `onRequest`, `onVerify`, the reconcile report): core imports nothing of
 * OpenTelemetry, so apps without it pay nothing. Attributes are what a person debugging needs
 * (model, generation id, request id, attempt, idempotency key, status, credits); never a header,
 * the API key, a webhook secret or signature, or a link's query.
 */
import type { ClientOptions, MediaGenClient, RequestHookInfo, RetryInfo } from '@mediagen/core';
import { type Attributes, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { routeOf } from './route';
import { tracerOf } from './tracer';

export { routeOf } from './route';

export interface TelemetryOptions {
  /** Default: `trace.getTracer('@mediagen/opentelemetry')` from the global provider. */
  tracer?: Tracer;
  /** The fetch the spans wrap. Default: the global fetch, looked up per call. */
  fetch?: typeof fetch;
  /** Your own `onRequest`, still called. */
  onRequest?: (info: RequestHookInfo) => unknown;
  /** Your own `onRetry`, still called. */
  onRetry?: (info: RetryInfo) => unknown;
}

/**
 * Client options that trace each HTTP attempt: `new MediaGenClient({ ...mediagenTelemetry() })`.
 * Pair with `instrument(client)` for the per-call parent spans.
 */
export function mediagenTelemetry(options: TelemetryOptions = {}): Pick<ClientOptions, 'fetch' | 'onRequest' | 'onRetry'> {
  const tracer = tracerOf(options.tracer);
  // The client calls onRequest synchronously just before each API attempt's fetch: the attempt
  // handed over here is the one the next fetch sends. A fetch with none is an output-link download.
  let sending: RequestHookInfo | undefined;
  const onRequest = (info: RequestHookInfo): unknown => {
    sending = info;
    return options.onRequest?.(info);
  };
  const traced: typeof fetch = async (input, init) => {
    const attempt = sending;
    sending = undefined;
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const route = routeOf(url);
    const attributes: Attributes = {
      'http.request.method': method,
      'url.template': route,
      'server.address': url.hostname,
      'mediagen.attempt': attempt?.attempt ?? 1,
    };
    if (attempt?.idempotencyKey !== undefined) attributes['mediagen.idempotency_key'] = attempt.idempotencyKey;
    return tracer.startActiveSpan(`mediagen.http ${method} ${route}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        const response = await (options.fetch ?? globalThis.fetch)(input, init);
        span.setAttribute('http.response.status_code', response.status);
        const requestId = response.headers.get('x-request-id');
        if (requestId) span.setAttribute('mediagen.request_id', requestId);
        if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      } catch (error) {
        // The error's name only: a network error's message can carry the URL.
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
        throw error;
      } finally {
        span.end();
      }
    });
  };
  return { fetch: traced, onRequest, ...(options.onRetry ? { onRetry: options.onRetry } : {}) };
}

const CALLS = ['create', 'get', 'wait', 'run'] as const;

/**
 * Wraps `client.generations.create/get/wait/run` in spans (`mediagen.generations.<call>`), with
 * the model, generation id, status, credits and request id of the answer; errors set the span's
 * status to the error's code. Returns the same client.
 */
export function instrument<C extends MediaGenClient>(client: C, options: Pick<TelemetryOptions, 'tracer'> = {}): C {
  const tracer = tracerOf(options.tracer);
  // Replaced on the instance: run() calls this.create and this.get, so its own calls nest.
  const generations = client.generations as unknown as Record<(typeof CALLS)[number], (...args: unknown[]) => Promise<unknown>>;
  for (const call of CALLS) {
    const original = generations[call].bind(generations);
    generations[call] = (first: unknown, ...rest: unknown[]) =>
      tracer.startActiveSpan(`mediagen.generations.${call}`, { attributes: callAttributes(first) }, async (span) => {
        try {
          const result = await original(first, ...rest);
          span.setAttributes(resultAttributes(result));
          return result;
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : 'error' });
          throw error;
        } finally {
          span.end();
        }
      });
  }
  return client;
}

function callAttributes(first: unknown): Attributes {
  if (typeof first === 'string') return { 'mediagen.generation_id': first };
  const model = (first as { model?: unknown } | undefined)?.model;
  return typeof model === 'string' ? { 'mediagen.model': model } : {};
}

function resultAttributes(result: unknown): Attributes {
  const r = (result ?? {}) as Record<string, unknown>;
  const attributes: Attributes = {};
  const pick = (key: string, name: string) => {
    const value = r[key];
    if (typeof value === 'string' || typeof value === 'number') attributes[name] = value;
  };
  pick('generation_id', 'mediagen.generation_id');
  pick('status', 'mediagen.status');
  pick('request_id', 'mediagen.request_id');
  pick('credits_used', 'mediagen.credits');
  pick('credits_estimate', 'mediagen.credits_estimate');
  pick('model', 'mediagen.model');
  return attributes;
}

export { traceLedger } from './ledger';
export { traceWebhook, webhookTelemetry } from './webhook';
