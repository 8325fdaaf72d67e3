import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { signWebhook, type WebhookPayload } from '@mediagen/core';

/** A webhook body shaped as the service sends it (spec: Events, payload). */
export function makePayload(overrides: Record<string, unknown> = {}): WebhookPayload {
  const id = (overrides.generation_id as string | undefined) ?? randomUUID();
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
  } as WebhookPayload;
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

/**
 * Sends the headers and the start of a body that never ends (a slow or hostile sender), and
 * resolves with the status the receiver answers while the body is still open.
 */
export function sendUnfinishedBody(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '100000', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
    });
    req.on('response', (res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      req.destroy();
    });
    req.on('error', reject);
    req.write('{"generation_id":');
  });
}
