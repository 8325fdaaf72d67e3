import { MediaGenClient, signWebhook } from '@mediagen/core';
import { createWebhookHandler } from '@mediagen/core/server';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { traceWebhook, webhookTelemetry } from '../src/index';
import { emulatorDeliveringTo } from './support/emulator';
import { childrenOf, spanText, tracing } from './support/tracing';

const API_KEY = 'svc_live_otel_webhook_key_4321';
const WEBHOOK_SECRET = 'whsec_otel_webhook_secret_8765';

const { exporter, tracer } = tracing();

describe('mediagen.webhook.receive > mediagen.webhook.verify', () => {
  it('a delivery from the emulator is verified in a child span; a forged one is refused in one; no secret or signature anywhere', async () => {
    const signatures: string[] = [];
    let received!: () => void;
    const delivered = new Promise<void>((resolve) => {
      received = resolve;
    });
    const receiver = traceWebhook(
      createWebhookHandler({ secrets: WEBHOOK_SECRET, onEvent: () => received(), ...webhookTelemetry({ tracer }) }),
      { tracer },
    );
    const webhook = (request: Request) => {
      signatures.push(request.headers.get('x-service-signature') ?? '');
      return receiver(request);
    };
    const emu = emulatorDeliveringTo(webhook, API_KEY, WEBHOOK_SECRET, 'acct_otel_webhook');
    try {
      const client = new MediaGenClient({ apiKey: API_KEY, baseUrl: emu.url, fetch: emu.fetch });
      const submitted = await client.generations.create({ model: 'image-fast', prompt: 'a lighthouse' });
      await delivered;
      await emu.deliveries.settled(submitted.generation_id);

      // A forgery: the real body, signed with another secret.
      const body = JSON.stringify({ generation_id: submitted.generation_id, status: 'completed' });
      const forgedSignature = await signWebhook(body, 'whsec_not_the_endpoint_secret');
      signatures.push(forgedSignature);
      const forged = await webhook(
        new Request('http://app.test/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-signature': forgedSignature },
          body,
        }),
      );
      expect(forged.status).toBe(401);

      const spans = exporter.getFinishedSpans();
      const receives = spans.filter((s) => s.name === 'mediagen.webhook.receive');
      const accepted = receives.find((s) => s.attributes['http.response.status_code'] === 200);
      const refused = receives.find((s) => s.attributes['http.response.status_code'] === 401);
      if (!accepted || !refused) throw new Error('expected an accepted and a refused receive span');
      expect(accepted.kind).toBe(SpanKind.SERVER);

      const [verified] = childrenOf(spans, accepted);
      expect(childrenOf(spans, accepted)).toHaveLength(1);
      expect(verified?.name).toBe('mediagen.webhook.verify');
      expect(verified?.attributes).toMatchObject({
        'mediagen.webhook.verified': true,
        'mediagen.webhook.event_type': 'generation.completed',
        'mediagen.generation_id': submitted.generation_id,
      });
      expect(verified?.attributes['mediagen.webhook.delivery_id']).toMatch(/\S/);
      expect(verified?.status.code).toBe(SpanStatusCode.UNSET);

      const [rejected] = childrenOf(spans, refused);
      expect(rejected?.name).toBe('mediagen.webhook.verify');
      expect(rejected?.attributes).toEqual({ 'mediagen.webhook.verified': false });
      expect(rejected?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'WEBHOOK_SIGNATURE_INVALID' });

      const text = spanText(spans);
      expect(signatures.length).toBeGreaterThanOrEqual(2);
      for (const signature of signatures) expect(text).not.toContain(signature.replace('sha256=', ''));
      expect(text).not.toContain(WEBHOOK_SECRET);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toMatch(/signature"|authorization/i);
    } finally {
      await emu.close();
    }
  });
});
