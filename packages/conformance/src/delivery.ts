import { randomUUID } from 'node:crypto';
import { type IncomingMessage, request } from 'node:http';
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

/** A receiver's answer read off a `node:http` exchange: its status and its body, parsed when JSON. */
export interface NodeAnswer {
  status: number;
  body: { error?: unknown; [key: string]: unknown } | undefined;
}

function answerOf(res: IncomingMessage): Promise<NodeAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      let body: NodeAnswer['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // Not JSON: the checks that read the body fail on `undefined`.
      }
      resolve({ status: res.statusCode ?? 0, body });
    });
  });
}

/**
 * Sends the headers and the start of a body that never ends (a slow or hostile sender), and
 * resolves with the answer the receiver gives while the body is still open. The declared length
 * is under every receiver's limit (`LIMIT`): over it, a receiver refuses at once (413), before
 * any deadline has a say.
 */
export function sendUnfinishedBody(url: string): Promise<NodeAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '1000', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
    });
    req.on('response', (res) => {
      answerOf(res)
        .then(resolve, reject)
        .finally(() => req.destroy());
    });
    req.on('error', reject);
    req.write('{"generation_id":');
  });
}

/**
 * `deliver` over `node:http` rather than `fetch`: for checks that fake the global timers, which
 * `fetch` (undici) schedules its own work on; Node's HTTP client does not use them.
 */
export async function deliverByNode(url: string, payload: WebhookPayload, secret: string): Promise<NodeAnswer> {
  const raw = JSON.stringify(payload);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhook/1.0',
    'x-service-event': `generation.${payload.status}`,
    'x-service-delivery-id': randomUUID(),
    'x-service-signature': await signWebhook(raw, secret),
  };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => void answerOf(res).then(resolve, reject));
    req.on('error', reject);
    req.end(raw);
  });
}
