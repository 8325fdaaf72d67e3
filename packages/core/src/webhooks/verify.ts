import { digestsEqual, hmacSha256, toHex } from '../crypto/hmac';
import { WebhookVerificationError } from '../errors';
import type { WebhookEventType, WebhookPayload } from '../types';
import { RAW_BODY_HELP, isParsedBody } from './raw-body';

export interface VerifyWebhookInput {
  /** The raw request body, exactly as received. A parsed object is refused. */
  body: string | Uint8Array | ArrayBuffer;
  /** The `X-Service-Signature` header: `sha256=<lowercase hex>`. */
  signature: string | null | undefined;
  /** The endpoint's signing secret, or several (more endpoints, or a rotation in progress). */
  secrets: string | readonly string[];
  /** The `X-Service-Event` header, when the framework gives it. */
  event?: string | null | undefined;
  /** The `X-Service-Delivery-Id` header (a new one on every attempt). */
  deliveryId?: string | null | undefined;
}

/**
 * A verified delivery. `type` is `generation.completed` or `generation.failed` today; the
 * spec says more types may come, so an unknown type is returned as is, never rejected.
 */
export interface WebhookEvent<T extends string = WebhookEventType | (string & {})> {
  type: T;
  /** Unique per attempt: for logs, not for de-duplication (use `data.generation_id`). */
  deliveryId: string | undefined;
  data: WebhookPayload;
}

const SIGNATURE = /^\s*sha256=([0-9a-f]{64})\s*$/i;
const encoder = new TextEncoder();

/**
 * Checks the HMAC-SHA256 of the raw body against every secret (each compared in constant
 * time, all of them always tried) and returns the typed event. Throws only
 * `WebhookVerificationError`, whatever the input.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookEvent> {
  const { body, signature, secrets, event, deliveryId } = input ?? ({} as VerifyWebhookInput);
  const list = (typeof secrets === 'string' ? [secrets] : Array.isArray(secrets) ? secrets : []).filter(
    (s): s is string => typeof s === 'string' && s !== '',
  );
  if (list.length === 0) {
    throw new WebhookVerificationError('No webhook secret configured.', 'WEBHOOK_SECRET_MISSING');
  }
  const bytes = rawBytes(body);
  const match = typeof signature === 'string' ? SIGNATURE.exec(signature) : null;
  if (!match) {
    throw new WebhookVerificationError(
      signature ? 'Malformed signature header.' : 'Missing signature header.',
      signature ? 'WEBHOOK_SIGNATURE_INVALID' : 'WEBHOOK_SIGNATURE_MISSING',
    );
  }
  const expected = fromHex(match[1]!.toLowerCase());
  let valid = false;
  for (const secret of list) {
    // No early exit: every secret is tried, so timing says nothing about which one matched.
    const ok = digestsEqual(await hmacSha256(secret, bytes).catch(fail), expected);
    valid = ok || valid;
  }
  if (!valid) {
    throw new WebhookVerificationError('The signature matches no configured secret.');
  }
  let data: WebhookPayload | undefined;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes)) as WebhookPayload;
  } catch {
    // Reported below, like any other non-object.
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new WebhookVerificationError('Body is not a JSON object.', 'WEBHOOK_PAYLOAD_INVALID');
  }
  const header = typeof event === 'string' ? event.trim() : '';
  const type = header || (typeof data.status === 'string' ? `generation.${data.status}` : 'unknown');
  return { type, deliveryId: typeof deliveryId === 'string' && deliveryId ? deliveryId : undefined, data };
}

/** `sha256=<hex>` of `body` under `secret`: what the service sends; for tests and the emulator. */
export async function signWebhook(body: string | Uint8Array | ArrayBuffer, secret: string): Promise<string> {
  if (typeof secret !== 'string' || secret === '') {
    throw new WebhookVerificationError('signWebhook needs a non-empty secret.', 'WEBHOOK_SECRET_MISSING');
  }
  return `sha256=${toHex(await hmacSha256(secret, rawBytes(body)).catch(fail))}`;
}

function rawBytes(body: unknown): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  // Uint8Array, Node's Buffer, or any other view: the bytes it covers, not its whole buffer.
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new WebhookVerificationError(RAW_BODY_HELP, isParsedBody(body) ? 'WEBHOOK_BODY_PARSED' : 'WEBHOOK_BODY_MISSING');
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function fail(cause: unknown): never {
  throw new WebhookVerificationError(`HMAC failed: ${String(cause)}`, 'WEBHOOK_CRYPTO_UNAVAILABLE');
}
