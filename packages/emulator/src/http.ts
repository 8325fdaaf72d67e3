import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BODY_LIMIT, MAX_JSON_DEPTH } from './bounds.js';
import { EmulatorHttpError, nextFor } from './errors.js';
import { serializeReply } from './serialize.js';

/** What a handler answers; the router writes it (or a fault replaces it). */
export interface Reply {
  status: number;
  body?: Record<string, unknown>;
  /** Pre-serialised JSON body, for hot paths that splice cached fragments. */
  json?: string;
  raw?: Buffer;
  headers?: Record<string, string>;
}

/**
 * Request ids from a pooled random buffer: one syscall per 4,096 ids, not per request. The
 * pool belongs to one server (no module-level state), so two emulators never share it.
 */
export class RequestIds {
  private pool = Buffer.alloc(0);
  private pos = 0;

  next(): string {
    if (this.pos + 12 > this.pool.length) {
      this.pool = randomBytes(12 * 4096);
      this.pos = 0;
    }
    const id = this.pool.toString('hex', this.pos, this.pos + 12);
    this.pos += 12;
    return `req_${id}`;
  }
}

export const bodyTooLarge = (): EmulatorHttpError =>
  new EmulatorHttpError(
    ['INVALID_BODY', 413],
    `The body is larger than ${BODY_LIMIT} bytes.`,
    { details: { field: 'body' } },
    // The rest of the body is not read: the connection closes after this answer.
    { connection: 'close' },
  );

/** True when the request carries a body (a length above 0, or a chunked one). */
export const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

/**
 * Reads the raw body up to `BODY_LIMIT`. A declared length over the cap is refused before a
 * byte is read; a chunked body is cut off at the cap. Either way the answer is
 * `413 INVALID_BODY` (the contract's code for an oversize upload).
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > BODY_LIMIT) {
      reject(bodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > BODY_LIMIT) {
        req.off('data', onData);
        chunks.length = 0;
        reject(bodyTooLarge());
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting of arrays and objects in a JSON text, found in one pass over the bytes
 * (outside strings), stopping as soon as `limit` is passed. Run before `JSON.parse` so that no
 * later recursive walk (canonicalising, validating) can meet a structure deep enough to
 * overflow the stack. UTF-8 continuation bytes never equal these ASCII values.
 */
export function exceedsDepth(buf: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/**
 * Parses a JSON body with its nesting bounded (see `exceedsDepth`). A malformed body is the
 * contract's `422 INVALID_BODY`, on the API and the test controls alike.
 */
export function parseJson(buf: Buffer): unknown {
  if (exceedsDepth(buf, MAX_JSON_DEPTH)) {
    throw new EmulatorHttpError('INVALID_BODY', `The body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
      details: { field: 'body' },
    });
  }
  try {
    // JSON is UTF-8 (RFC 8259): a body with bytes that are not is unparseable, not patched with U+FFFD.
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buf));
  } catch {
    throw new EmulatorHttpError('INVALID_BODY', 'The body is not valid JSON.', { details: { field: 'body' } });
  }
}

export function parseJsonObject(buf: Buffer): Record<string, unknown> {
  const v = parseJson(buf);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new EmulatorHttpError('INVALID_BODY', 'The body must be a JSON object.', { details: { field: 'body' } });
  }
  return v as Record<string, unknown>;
}

/** A path segment decoded, or null when its percent-encoding is malformed (`%ZZ`, a cut UTF-8 sequence). */
export function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function toErrorReply(e: EmulatorHttpError): Reply {
  return errorReply(e.status, e.code, e.message, e.extra, e.headers);
}

/** The spec's error body for any status and code (an injected fault's included). */
export function errorReply(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Reply {
  return { status, body: { error: code, message, next: nextFor(code), ...extra }, headers };
}

/** Writes a reply on a Node response (the in-process mount writes the same `serializeReply`). */
export function send(res: ServerResponse, rid: string, reply: Reply, head = false): void {
  const { status, headers, payload } = serializeReply(rid, reply);
  // A body this route never read (or read only in part) is not drained: close after answering.
  if (hasBody(res.req) && !res.req.complete) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(head ? undefined : payload);
}
