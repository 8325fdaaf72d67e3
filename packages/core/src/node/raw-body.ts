import { isRawBody } from '../webhooks/raw-body';
import { type NodeRequestSource, nodeRequestOf } from './types';

export type BodySource =
  /** A parser kept the exact bytes (`express.raw()`, `express.text()`, `req.rawBody`). */
  | { kind: 'bytes'; body: Uint8Array | string }
  /** Nothing has read the body yet: stream it. */
  | { kind: 'stream' }
  /** Something (usually `express.json()` mounted earlier) consumed the bytes and kept only a parsed value. */
  | { kind: 'consumed' };

/** Where the raw bytes of this request can still be found, if anywhere. */
export function findRawBody(req: NodeRequestSource): BodySource {
  const { body, rawBody } = req;
  if (isRawBody(body)) return { kind: 'bytes', body: asBytes(body) };
  if (isRawBody(rawBody)) return { kind: 'bytes', body: asBytes(rawBody) };
  // body-parser sets `_body`; a stream read by anything else shows it in its own flags.
  const node = nodeRequestOf(req);
  const read = (req as { _body?: unknown })._body === true || node.readableDidRead === true || node.readableEnded === true;
  return read ? { kind: 'consumed' } : { kind: 'stream' };
}

function asBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array | string {
  return body instanceof ArrayBuffer ? new Uint8Array(body) : body;
}
