import type { IncomingMessage } from 'node:http';
import type { Request as ExpressRequest } from 'express';

/** Headers that describe the connection, not the message. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/**
 * The Express request as a Web `Request`: same method, URL and headers, and as body either
 * the bytes a body parser already left (`express.raw()`, `express.text()`, `req.rawBody`) or
 * the unread request stream itself.
 */
export function toWebRequest(req: ExpressRequest, body: Uint8Array | string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    // With bytes in hand their own length is the truth, not the header's.
    if (body !== undefined && name === 'content-length') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const bodiless = req.method === 'GET' || req.method === 'HEAD';
  return new Request(urlOf(req), {
    method: req.method,
    headers,
    body: bodiless ? undefined : (body ?? streamOf(req)),
    // Node's fetch needs this for a streamed body.
    duplex: 'half',
  } as RequestInit);
}

/** The request's absolute URL; a Host header that makes no URL falls back to localhost. */
function urlOf(req: ExpressRequest): string {
  const path = req.originalUrl ?? req.url;
  try {
    return new URL(path, `${req.protocol}://${req.get('host') ?? 'localhost'}`).href;
  } catch {
    return new URL(path, 'http://localhost').href;
  }
}

/**
 * The request stream as a Web stream with backpressure. A reader that stops early (a body
 * over the limit) makes the rest drain rather than destroying the socket, so the answer
 * (413) still reaches the sender.
 */
function streamOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) req.pause();
      });
      req.once('end', () => open && ((open = false), controller.close()));
      req.once('error', (error) => open && ((open = false), controller.error(error)));
      req.pause();
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      req.resume();
    },
  });
}
