/**
 * What adapters need to refuse a body a framework already parsed. The signature covers the
 * exact bytes sent; `JSON.stringify` of a parsed object rarely reproduces them (spacing, key
 * order, escapes, number forms), so a parsed body is refused, never re-stringified.
 */

export type RawBody = string | Uint8Array | ArrayBuffer;

/** True for the raw body forms `verifyWebhook` accepts (Node's Buffer is a Uint8Array). */
export function isRawBody(body: unknown): body is RawBody {
  return typeof body === 'string' || body instanceof ArrayBuffer || ArrayBuffer.isView(body);
}

/** True when a framework has already parsed the body into an object (the mistake to explain). */
export function isParsedBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !isRawBody(body);
}

/** How to get the raw body in each supported framework. */
export const RAW_BODY_HELP =
  'Pass the raw body (string or bytes), not a parsed object: the signature covers the exact bytes. ' +
  "Express: express.raw({ type: 'application/json' }) before express.json(). " +
  'Next.js: await request.text(). NestJS: { rawBody: true } in NestFactory.create, then req.rawBody.';
