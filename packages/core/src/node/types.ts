/**
 * The parts of Node's `IncomingMessage` / `ServerResponse` this layer uses, written out so the
 * entry has no `node:` import: Express's `req`, Fastify's `request.raw`, NestJS on either
 * platform and plain `node:http` all fit.
 */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  /** Express keeps the path before mounting here. */
  originalUrl?: string | undefined;
  /** Express's protocol (honours `trust proxy`). */
  protocol?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** A TLS socket has `encrypted: true`. */
  socket?: object | null;
  /** What a body parser left: raw bytes (`express.raw()`), text, or a parsed object. */
  body?: unknown;
  /** Raw bytes kept by NestJS (`rawBody: true`) or an app's own `verify` hook. */
  rawBody?: unknown;
  readableDidRead?: boolean;
  readableEnded?: boolean;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'end', listener: () => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  end(chunk?: Uint8Array | string): unknown;
  /** Present on Node's response: a streamed body (server-sent events) is written as it comes. */
  write?(chunk: Uint8Array): unknown;
  flushHeaders?(): unknown;
  on?(event: 'close' | 'drain', listener: () => void): unknown;
  once?(event: 'close' | 'drain', listener: () => void): unknown;
  off?(event: 'close' | 'drain', listener: () => void): unknown;
  headersSent?: boolean;
  /** True once the connection is gone (Node sets it before `close`). */
  destroyed?: boolean;
}

/**
 * A framework's request that wraps the Node request as `raw` (Fastify's `request`, NestJS on
 * Fastify): the body a parser left and `rawBody` are on it, the stream and flags on `raw`.
 */
export interface WrappedNodeRequest {
  raw: NodeRequestLike;
  body?: unknown;
  rawBody?: unknown;
}

/** What the Node layer takes: a Node request, or a framework's request around one. */
export type NodeRequestSource = NodeRequestLike | WrappedNodeRequest;

/** The Node request itself. */
export function nodeRequestOf(req: NodeRequestSource): NodeRequestLike {
  return ('raw' in req && req.raw ? req.raw : req) as NodeRequestLike;
}
