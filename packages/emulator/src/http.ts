import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, nextFor } from './errors.js';
import { H } from './constants.js';

/** What a handler answers; the router writes it (or a fault replaces it). */
export interface Reply {
  status: number;
  body?: Record<string, unknown>;
  /** Pre-serialised JSON body, for hot paths that splice cached fragments. */
  json?: string;
  raw?: Buffer;
  headers?: Record<string, string>;
}

// Request ids come from a pooled random buffer: one syscall per 4,096 ids, not per request.
let pool = Buffer.alloc(0);
let poolPos = 0;
export function newRequestId(): string {
  if (poolPos + 12 > pool.length) {
    pool = randomBytes(12 * 4096);
    poolPos = 0;
  }
  const id = pool.toString('hex', poolPos, poolPos + 12);
  poolPos += 12;
  return `req_${id}`;
}

export const BODY_LIMIT = 1024 * 1024;

/** Reads the raw body; oversize bodies get 413 INVALID_BODY as the contract's upload rule. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > BODY_LIMIT) {
        reject(new ApiError(413, 'INVALID_BODY', `The body is larger than ${BODY_LIMIT} bytes.`, { details: { field: 'body' } }));
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseJsonObject(buf: Buffer): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new ApiError(422, 'INVALID_BODY', 'The body is not valid JSON.', { details: { field: 'body' } });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ApiError(422, 'INVALID_BODY', 'The body must be a JSON object.', { details: { field: 'body' } });
  }
  return v as Record<string, unknown>;
}

export function errorReply(e: ApiError): Reply {
  return {
    status: e.status,
    body: { error: e.code, message: e.message, next: nextFor(e.code), ...e.extra },
    headers: e.headers,
  };
}

/** Writes a reply; JSON bodies get `request_id` equal to the X-Request-Id header. */
export function send(res: ServerResponse, rid: string, reply: Reply, head = false): void {
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
  res.writeHead(reply.status, headers);
  res.end(head ? undefined : payload);
}
