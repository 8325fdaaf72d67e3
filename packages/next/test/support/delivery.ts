import { randomUUID } from 'node:crypto';
import { signWebhook, type WebhookPayload } from '@mediagen/core';

export const SECRET = 'whsec_next_test';

export function payload(overrides: Record<string, unknown> = {}): WebhookPayload {
  const id = randomUUID();
  return {
    generation_id: id,
    status: 'completed',
    model: 'image-fast',
    output_url: `https://example.test/api/v1/output/${id}/1900000000/sig/0/image-fast-1.png`,
    output_urls: [`https://example.test/api/v1/output/${id}/1900000000/sig/0/image-fast-1.png`],
    credits_charged: 4,
    duration_ms: 1200,
    completed_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  } as WebhookPayload;
}

/** A signed delivery as the service sends it, as a Web `Request`. */
export async function signedRequest(
  body: WebhookPayload | string,
  secret = SECRET,
  url = 'http://localhost/api/webhooks/mediagen',
): Promise<Request> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const event = typeof body === 'string' ? 'generation.completed' : `generation.${body.status}`;
  return new Request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Service-Webhook/1.0',
      'x-service-signature': await signWebhook(raw, secret),
      'x-service-event': event,
      'x-service-delivery-id': randomUUID(),
    },
    body: raw,
  });
}
