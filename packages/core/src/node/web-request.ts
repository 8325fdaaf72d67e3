import type { NodeRequestLike } from './types';

/** Headers that describe the connection, not the message. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

export interface ToWebRequestOptions {
  /** Bytes already captured (`req.rawBody`, `express.raw()`); default: stream the unread request. */
  body?: Uint8Array | string | undefined;
  /**
   * The path and query to use instead of the request's own: a router mounted under a prefix
   * (Express's `req.url` inside `app.use('/api', …)`) routes on its part of the path.
   */
  url?: string | undefined;
}

/**
 * A Node request as a Web `Request`: same method, URL and headers, and as body either bytes a
 * parser already kept or the unread request stream itself (with backpressure).
 */
export function toWebRequest(req: NodeRequestLike, options: ToWebRequestOptions = {}): Request {
  const { body } = options;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    // With bytes in hand their own length is the truth, not the header's.
    if (body !== undefined && name === 'content-length') continue;
    try {
      headers.set(name, Array.isArray(value) ? value.join(', ') : (value as string));
    } catch {
      // A header value Node accepted but the Fetch API refuses: not one this layer reads.
    }
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const bodiless = method === 'GET' || method === 'HEAD';
  return new Request(urlOf(req, options.url), {
    method,
    headers,
    body: bodiless ? undefined : (body ?? streamOf(req)),
    // Node's fetch needs this for a streamed body.
    duplex: 'half',
  } as RequestInit);
}

/** The request's absolute URL; a Host header that makes no URL falls back to localhost. */
function urlOf(req: NodeRequestLike, url: string | undefined): string {
  const path = url ?? req.originalUrl ?? req.url ?? '/';
  const protocol = req.protocol ?? ((req.socket as { encrypted?: boolean } | null | undefined)?.encrypted ? 'https' : 'http');
  const host = req.headers.host;
  try {
    return new URL(path.replace(/^\/+/, '/'), `${protocol}://${typeof host === 'string' && host ? host : 'localhost'}`).href;
  } catch {
    try {
      return new URL(path, 'http://localhost').href;
    } catch {
      return 'http://localhost/';
    }
  }
}

/**
 * The request stream as a Web stream with backpressure. A reader that stops early (a body
 * over the limit) makes the rest drain rather than destroying the socket, so the answer
 * (413) still reaches the sender.
 */
function streamOf(req: NodeRequestLike): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Uint8Array) => {
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
