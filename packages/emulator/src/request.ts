import type { EmulatorHttpError } from './errors.js';
import type { Reply } from './http.js';

/**
 * One request as the router sees it, whichever way it arrived: through the Node server
 * (`server.ts`) or in-process as a Web `Request` (`web.ts`). The router never touches a socket,
 * so both mounts answer with the same code.
 */
export interface EmulatorRequest {
  method: string;
  /** The path and query, without the base address (`/api/v1/models?x=1`). */
  target: string;
  /** A request header by its lowercase name. */
  header(name: string): string | undefined;
  /** True when the request carries a body (a length above 0, or a chunked one). */
  hasBody: boolean;
  /** The raw body, at most `BODY_LIMIT` bytes; over it, rejects with `413 INVALID_BODY`. */
  body(): Promise<Buffer>;
  /**
   * Null when this request may drive the test controls; else the refusal. The Node mount
   * checks the peer, `Host` and `Origin`; an in-process caller is the test itself.
   */
  controlAccess(): EmulatorHttpError | null;
}

/** What the router answers: a reply to write, or a connection reset (a `reset` fault). */
export type Answer = { reply: Reply; rid: string; head: boolean } | { reset: true };
