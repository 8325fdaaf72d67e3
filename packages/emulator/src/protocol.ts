import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { EmulatorHttpError, nextFor } from './errors.js';
import { type RequestIds, send, toErrorReply } from './http.js';

/** Node's protocol-level failures, as the contract's JSON error body (Node's own has no body). */
function errorFor(code: string | undefined): EmulatorHttpError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new EmulatorHttpError('REQUEST_TIMEOUT', 'The request (headers and body) did not arrive in time.');
    case 'HPE_HEADER_OVERFLOW':
      return new EmulatorHttpError('HEADERS_TOO_LARGE', 'The request headers are too large.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new EmulatorHttpError(['INVALID_BODY', 413], 'The chunk extensions are too large.', { details: { field: 'body' } });
    default:
      return new EmulatorHttpError('BAD_REQUEST', 'The request is not valid HTTP/1.1.');
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

/**
 * The server's `clientError` listener. Where an answer can still be written (the socket is
 * open and no response has started on it) it gets the JSON error body, then the connection
 * closes; a reset or a half-written response is only closed. `inFlight` maps sockets to the
 * response the router is working on, so a request whose body stalls is answered through it.
 */
export function createClientErrorListener(inFlight: WeakMap<Duplex, ServerResponse>, ids: RequestIds) {
  return (err: NodeJSErrorLike, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    const e = errorFor(err.code);
    const res = inFlight.get(socket);
    if (res) {
      if (res.headersSent) {
        socket.destroy();
        return;
      }
      const reply = toErrorReply(e);
      reply.headers = { ...reply.headers, connection: 'close' };
      send(res, ids.next(), reply);
      res.once('finish', () => socket.destroy());
      return;
    }
    const rid = ids.next();
    const body = JSON.stringify({ error: e.code, message: e.message, next: nextFor(e.code), ...e.extra, request_id: rid });
    socket.end(
      `HTTP/1.1 ${e.status} ${REASONS[e.status] ?? 'Bad Request'}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${rid}\r\n` +
        'connection: close\r\n\r\n' +
        body,
    );
    // A peer that never reads must not hold the socket: end() flushes, this bounds the wait.
    setTimeout(() => socket.destroy(), 1_000).unref();
  };
}

interface NodeJSErrorLike extends Error {
  code?: string;
}
