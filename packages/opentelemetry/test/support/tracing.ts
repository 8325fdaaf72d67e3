import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll } from 'vitest';

/** An in-memory exporter and its tracer, with async context on for this test file. */
export function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
  });
  afterAll(() => {
    contextManager.disable();
    context.disable();
  });
  return { exporter, tracer: provider.getTracer('test') };
}

export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

export const childrenOf = (spans: ReadableSpan[], parent: ReadableSpan) =>
  spans.filter((s) => parentOf(s) === parent.spanContext().spanId && s.spanContext().traceId === parent.spanContext().traceId);

export const byStart = (a: ReadableSpan, b: ReadableSpan) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1];

/** Every name, attribute and status of the spans, as one text to search for what must not be there. */
export const spanText = (spans: ReadableSpan[]) => JSON.stringify(spans.map((s) => [s.name, s.attributes, s.status, s.events]));
