import { BODY_LIMIT } from './bounds.js';
import { bodyTooLarge, RequestIds } from './http.js';
import type { EmulatorRequest } from './request.js';
import { route } from './router.js';
import { serializeReply } from './serialize.js';
import type { EmulatorState } from './state.js';

/** A Web `Request`'s body, read up to `BODY_LIMIT`; past it, `413 INVALID_BODY` (as on the Node server). */
async function readWebBody(request: Request): Promise<Buffer> {
  if (request.body === null) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > BODY_LIMIT) {
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The path and query of `url` below the emulator's base path, or null when `url` is not under
 * the base address. The raw (percent-encoded) path is kept, as a Node server receives it.
 */
export function targetOf(url: URL, base: URL): string | null {
  if (url.origin !== base.origin) return null;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (prefix !== '' && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return null;
  return (url.pathname.slice(prefix.length) || '/') + url.search;
}

/**
 * The in-process mount: a Web `Request` -> `Response` function over the same router as the Node
 * server. The caller is the test process itself, so the controls' network checks (loopback
 * peer, `Host`, `Origin`) do not apply; their JSON-body rule does. A `reset` fault answers
 * `Response.error()`, the network error `fetch` and MSW understand.
 */
export function createWebHandler(s: EmulatorState, base: URL): (request: Request) => Promise<Response> {
  const ids = new RequestIds();
  return async (request) => {
    const url = new URL(request.url);
    const target = targetOf(url, base) ?? url.pathname + url.search;
    const req: EmulatorRequest = {
      method: request.method,
      target,
      header: (name) => request.headers.get(name) ?? undefined,
      hasBody: request.body !== null,
      body: () => readWebBody(request),
      controlAccess: () => null,
    };
    const a = await route(s, req, ids.next());
    if ('reset' in a) return Response.error();
    const { status, headers, payload } = serializeReply(a.rid, a.reply);
    // A HEAD answer never has a body, whatever the route answered (HTTP drops it on the wire).
    const body =
      request.method === 'HEAD' || payload === undefined ? null : typeof payload === 'string' ? payload : new Uint8Array(payload);
    return new Response(body, { status, headers });
  };
}
