import { isRawBody } from '@mediagen/core';
import type { Request as ExpressRequest } from 'express';

export type BodySource =
  /** A body parser kept the exact bytes (`express.raw()`, `express.text()`, or `req.rawBody`). */
  | { kind: 'bytes'; body: Uint8Array | string }
  /** Nothing has read the body yet: stream it. */
  | { kind: 'stream' }
  /** Something (usually `express.json()` mounted earlier) consumed the bytes and kept only a parsed value. */
  | { kind: 'consumed' };

type MaybeParsed = ExpressRequest & { rawBody?: unknown; _body?: boolean };

/** Where the raw bytes of this request can still be found, if anywhere. */
export function findRawBody(req: ExpressRequest): BodySource {
  const { body, rawBody } = req as MaybeParsed;
  if (isRawBody(body)) return { kind: 'bytes', body: asBytes(body) };
  if (isRawBody(rawBody)) return { kind: 'bytes', body: asBytes(rawBody) };
  const read = (req as MaybeParsed)._body === true || req.readableDidRead || req.readableEnded;
  return read ? { kind: 'consumed' } : { kind: 'stream' };
}

function asBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array | string {
  return body instanceof ArrayBuffer ? new Uint8Array(body) : body;
}
