import { randomUUID } from 'node:crypto';
import { signWebhook, type WebhookPayload } from '@mediagen/core';

/** A webhook body shaped as the service sends it (spec: Events, payload). */
export function makePayload(overrides: Partial<WebhookPayload> = {}): WebhookPayload {
  const id = overrides.generation_id ?? randomUUID();
  return {
    generation_id: id,
    status: 'completed',
    model: 'image-fast',
    output_url: `http://127.0.0.1:4010/api/v1/output/${id}/1893456000/sig/0/image.png`,
    output_urls: [`http://127.0.0.1:4010/api/v1/output/${id}/1893456000/sig/0/image.png`],
    credits_charged: 4,
    duration_ms: 812,
    completed_at: new Date().toISOString(),
    ...overrides,
  };
}

export interface DeliverOptions {
  /** Signs with this secret; `null` sends no signature header. */
  secret: string | null;
  /** Default: `generation.<status>` of the payload. */
  event?: string;
  contentType?: string;
  /** Replaces the signature header as is. */
  signature?: string;
  headers?: Record<string, string>;
}

/** POSTs one delivery attempt as the service does (headers, raw body, signature) and returns the response. */
export async function deliver(url: string, body: string | WebhookPayload, options: DeliverOptions): Promise<Response> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const status = typeof body === 'string' ? 'completed' : body.status;
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    'user-agent': 'Service-Webhook/1.0',
    'x-service-event': options.event ?? `generation.${status}`,
    'x-service-delivery-id': randomUUID(),
    ...options.headers,
  };
  if (options.signature !== undefined) headers['x-service-signature'] = options.signature;
  else if (options.secret !== null) headers['x-service-signature'] = await signWebhook(raw, options.secret);
  return fetch(url, { method: 'POST', headers, body: raw });
}
