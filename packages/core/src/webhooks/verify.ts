import { createHmac, encoder, type Hmac, toHex } from '../crypto/hmac';
import { WebhookVerificationError } from '../errors';
import { text } from '../params/read';
import type { CompletedWebhookPayload, FailedWebhookPayload, WebhookPayload } from '../types';
import { isParsedBody, RAW_BODY_HELP } from './raw-body';

/** A header as frameworks hand it over: Web `Headers.get` gives `string | null`, Node `string | string[] | undefined`. */
export type HeaderValue = string | readonly string[] | null | undefined;

export interface VerifyWebhookInput {
  /** The raw request body, exactly as received. A parsed object is refused. */
  body: string | Uint8Array | ArrayBuffer;
  /** The `X-Service-Signature` header: `sha256=<lowercase hex>`. */
  signature: HeaderValue;
  /** The endpoint's signing secret, or several (more endpoints, or a rotation in progress). */
  secrets: string | readonly string[];
  /**
   * The `X-Service-Event` header, when the framework gives it. Not signed, so never trusted:
   * the type comes from the signed body, and a header that contradicts it is refused.
   */
  event?: HeaderValue;
  /** The `X-Service-Delivery-Id` header (a new one on every attempt). */
  deliveryId?: HeaderValue;
}

interface WebhookEventBase {
  /** Unique per attempt: for logs, not for de-duplication (use `data.generation_id`). */
  deliveryId: string | undefined;
}

/** A generation reached `completed`: `data.output_url` is set. */
export interface GenerationCompletedEvent extends WebhookEventBase {
  type: 'generation.completed';
  data: CompletedWebhookPayload;
}

/** A generation reached `failed`: `data.error_code`, `error_message` and `retryable` are set. */
export interface GenerationFailedEvent extends WebhookEventBase {
  type: 'generation.failed';
  data: FailedWebhookPayload;
}

/** A verified generation event, typed from its signed body: narrow on `type`. What receivers hand to `onEvent`. */
export type WebhookEvent = GenerationCompletedEvent | GenerationFailedEvent;

/**
 * An authentic delivery of a type this SDK does not know: the contract adds event types within
 * v1 ("more types may come"). Safe to ignore; `data` is the signed body as sent (its `status`
 * says what it is). Receivers acknowledge it with a 2xx and do not call `onEvent`.
 */
export interface UnknownWebhookEvent extends WebhookEventBase {
  type: 'unknown';
  data: Record<string, unknown>;
}

/** What `verifyWebhook` returns: a generation event, or one of a type added after this SDK. */
export type VerifiedWebhookEvent = WebhookEvent | UnknownWebhookEvent;

const SIGNATURE = /^\s*sha256=([0-9a-f]{64})\s*$/i;

/**
 * Checks the HMAC-SHA256 of the raw body against every secret (each compared in constant
 * time, all of them always tried) and returns the typed event. Throws only
 * `WebhookVerificationError`, whatever the input.
 */
export function verifyWebhook(input: VerifyWebhookInput): Promise<VerifiedWebhookEvent> {
  return verifyWebhookWith(createHmac(), input);
}

/** `verifyWebhook` on a given HMAC (a receiver keeps one, with its key cache, for its life). */
export async function verifyWebhookWith(hmac: Hmac, input: VerifyWebhookInput): Promise<VerifiedWebhookEvent> {
  const { body, signature, secrets, event, deliveryId } = input ?? ({} as VerifyWebhookInput);
  const list = [secrets].flat().filter((s): s is string => typeof s === 'string' && s !== '');
  if (!list.length) {
    throw new WebhookVerificationError('No webhook secret configured.', 'WEBHOOK_SECRET_MISSING');
  }
  const bytes = rawBytes(body);
  const signatureHeader = single(signature);
  const match = SIGNATURE.exec(signatureHeader ?? '');
  if (!match) {
    throw new WebhookVerificationError(
      signatureHeader ? 'Malformed signature header.' : 'Missing signature header.',
      signatureHeader ? 'WEBHOOK_SIGNATURE_INVALID' : 'WEBHOOK_SIGNATURE_MISSING',
    );
  }
  const expected = fromHex(match[1]!);
  let valid = false;
  for (const secret of list) {
    // No early exit: every secret is tried, so timing says nothing about which one matched.
    const ok = hmac.equal(await hmac.sign(secret, bytes).catch(fail), expected);
    valid = ok || valid;
  }
  if (!valid) {
    throw new WebhookVerificationError('The signature matches no configured secret.');
  }
  // Stays undefined (which no JSON is) when the bytes are not UTF-8, hence not JSON (util/body's
  // decodeJsonText, inlined: this path is budgeted); the text when it is not JSON.
  let data: unknown;
  try {
    data = JSON.parse((data = new TextDecoder(undefined, { fatal: true }).decode(bytes)));
  } catch {
    // Reported below, like any other non-object.
  }
  const payload = checkPayload(data);
  // checkPayload makes a new object of a generation event, and returns any other body as is.
  const type = payload === data ? 'unknown' : (`generation.${payload.status}` as const);
  // The header is not signed: it may only repeat what the signed body says. (An unknown event
  // is ignored whatever the header claims, so nothing hangs on it.)
  const eventHeader = single(event)?.trim();
  if (eventHeader && type !== 'unknown' && eventHeader !== type) {
    throw new WebhookVerificationError(`X-Service-Event contradicts the signed body (${type}).`, 'WEBHOOK_EVENT_MISMATCH');
  }
  return { type, deliveryId: single(deliveryId) || undefined, data: payload } as VerifiedWebhookEvent;
}

/**
 * The signed body as a payload the event types can promise: on completed and failed, a
 * generation id; a link on completed; the error fields on failed. Any other status is a type
 * added after this SDK: its body is returned as sent. Unknown fields are always kept.
 */
function checkPayload(data: unknown): WebhookPayload | Record<string, unknown> {
  const body = ((typeof data === 'object' && !Array.isArray(data) && data) || {}) as Record<string, unknown>;
  const { status, generation_id: id, output_url: url, error_code: code } = body;
  const invalid = (what: string) => new WebhookVerificationError(`Not an event: ${what}`, 'WEBHOOK_PAYLOAD_INVALID');
  if (body !== data) throw invalid(data === undefined ? 'not UTF-8' : 'not a JSON object');
  if (status !== 'completed' && status !== 'failed') return body; // the same object: unknown
  if (!text(id)) throw invalid('no generation_id');
  if (status === 'completed') {
    if (typeof url !== 'string') throw invalid('no output_url');
    const urls = body.output_urls;
    return { ...body, output_urls: Array.isArray(urls) ? urls : [url] } as CompletedWebhookPayload;
  }
  // Failed. An earlier form may leave the message or the flag out; the code is what handlers branch on.
  if (typeof code !== 'string') throw invalid('no error_code');
  return {
    ...body,
    output_url: null,
    output_urls: null,
    error_message: text(body.error_message) ?? '',
    retryable: body.retryable === true,
  } as FailedWebhookPayload;
}

/** One header value; a repeated header (Node gives an array) counts as its first value. */
function single(value: HeaderValue): string | undefined {
  return text(Array.isArray(value) ? value[0] : value);
}

/** `sha256=<hex>` of `body` under `secret`: what the service sends; for tests and the emulator. */
export async function signWebhook(body: string | Uint8Array | ArrayBuffer, secret: string): Promise<string> {
  if (!text(secret)) {
    throw new WebhookVerificationError('No webhook secret configured.', 'WEBHOOK_SECRET_MISSING');
  }
  return `sha256=${toHex(await createHmac().sign(secret, rawBytes(body)).catch(fail))}`;
}

function rawBytes(body: unknown): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  try {
    if (body instanceof ArrayBuffer) return new Uint8Array(body);
    // Uint8Array, Node's Buffer, or any other view: the bytes it covers, not its whole buffer.
    if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  } catch {
    // A detached (transferred) buffer has no bytes left to verify.
    throw new WebhookVerificationError('Detached body buffer.', 'WEBHOOK_BODY_MISSING');
  }
  throw new WebhookVerificationError(RAW_BODY_HELP, isParsedBody(body) ? 'WEBHOOK_BODY_PARSED' : 'WEBHOOK_BODY_MISSING');
}

/**
 * Hex the signature pattern already checked, either case, to bytes by character code: a nibble
 * is the code's low 4 bits, plus 9 for a letter (`a`/`A` is 97/65). Five times faster than
 * `parseInt` over slices, on every delivery.
 */
function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < hex.length; i++) {
    const c = hex.charCodeAt(i);
    out[i >> 1] = (out[i >> 1]! << 4) | ((c & 15) + (c >> 6) * 9);
  }
  return out;
}

function fail(cause: unknown): never {
  throw new WebhookVerificationError(`HMAC failed: ${String(cause)}`, 'WEBHOOK_CRYPTO_UNAVAILABLE');
}
