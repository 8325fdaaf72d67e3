import { signWebhook } from '@mediagen/core';
import { createWebhookHandler } from '@mediagen/core/server';
import { SpanStatusCode } from '@opentelemetry/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { traceWebhook, webhookTelemetry } from '../src/index';
import { spanText, tracing } from './support/tracing';

const SECRET = 'whsec_otel_hostile_receive';

const { exporter, tracer } = tracing();

describe('mediagen.webhook.receive under hostile deliveries', () => {
  it('a receiver that throws ends its span as an error, with the code or class only, and the error goes on unchanged', async () => {
    exporter.reset();
    const thrown = Object.assign(new Error(`body cut off, Authorization: Bearer svc_live_leak ${SECRET}`), { code: 'BODY_CUT' });
    const receive = traceWebhook(
      async () => {
        throw thrown;
      },
      { tracer },
    );
    const caught = await receive(new Request('http://app.test/webhooks', { method: 'POST', body: '{}' })).catch((e: unknown) => e);
    expect(caught).toBe(thrown);
    const plain = traceWebhook(
      async () => {
        throw new TypeError('x');
      },
      { tracer },
    );
    await expect(plain(new Request('http://app.test/webhooks', { method: 'POST', body: '{}' }))).rejects.toBeInstanceOf(TypeError);

    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'mediagen.webhook.receive');
    expect(spans.map((s) => s.status)).toEqual([
      { code: SpanStatusCode.ERROR, message: 'BODY_CUT' },
      { code: SpanStatusCode.ERROR, message: 'TypeError' },
    ]);
    const text = spanText(spans);
    expect(text).not.toContain('svc_live_leak');
    expect(text).not.toContain(SECRET);
  });

  it('the delivery id, an unsigned header, is recorded only in the UUID shape the service sends (fast-check)', async () => {
    const receive = traceWebhook(
      createWebhookHandler({ secrets: SECRET, dedupe: false, onEvent: () => {}, ...webhookTelemetry({ tracer }) }),
      {
        tracer,
      },
    );
    const body = JSON.stringify({ generation_id: 'gen_hostile', status: 'completed', output_url: 'https://cdn.test/o.png' });
    const signature = await signWebhook(body, SECRET);
    const deliver = (deliveryId: string) =>
      receive(
        new Request('http://app.test/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-service-delivery-id': deliveryId },
          body,
        }),
      );
    const verifySpans = () => exporter.getFinishedSpans().filter((s) => s.name === 'mediagen.webhook.verify');

    // A replayed, genuinely signed body with any header the sender likes: a long text, a forged id.
    const forged = fc
      .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 4_000 })
      .map((s) => s.trim())
      .filter((s) => s !== '' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s));
    await fc.assert(
      fc.asyncProperty(forged, async (deliveryId) => {
        exporter.reset();
        const res = await deliver(deliveryId);
        expect(res.status).toBe(200);
        const [verify] = verifySpans();
        expect(verify?.attributes['mediagen.webhook.verified']).toBe(true);
        expect(verify?.attributes['mediagen.webhook.delivery_id']).toBeUndefined();
      }),
      { numRuns: 60 },
    );

    exporter.reset();
    const uuid = crypto.randomUUID();
    expect((await deliver(uuid)).status).toBe(200);
    expect(verifySpans()[0]?.attributes['mediagen.webhook.delivery_id']).toBe(uuid);
  });
});
