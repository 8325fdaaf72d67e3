import { H } from './constants.js';
import type { Reply } from './http.js';

export interface Serialized {
  status: number;
  headers: Record<string, string>;
  /** The bytes to send; undefined for a reply with no body. `content-length` is set for it. */
  payload: Buffer | string | undefined;
}

/**
 * A reply's status, headers and body bytes, written alike by the Node server and the
 * in-process mount. JSON bodies get `request_id` equal to the `X-Request-Id` header (a replayed
 * submit keeps its original id in both).
 */
export function serializeReply(rid: string, reply: Reply): Serialized {
  const headers: Record<string, string> = { ...reply.headers };
  let payload: Buffer | string | undefined;
  if (reply.raw) {
    payload = reply.raw;
  } else if (reply.json !== undefined) {
    payload = reply.json;
    headers['content-type'] = 'application/json; charset=utf-8';
  } else if (reply.body) {
    const body = 'request_id' in reply.body ? reply.body : { ...reply.body, request_id: rid };
    if (typeof body.request_id === 'string') rid = body.request_id;
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  headers[H.requestId] = rid;
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return { status: reply.status, headers, payload };
}
