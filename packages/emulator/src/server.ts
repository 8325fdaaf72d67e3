import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { networkControlAccess } from './controls.js';
import { hasBody, RequestIds, readBody, send } from './http.js';
import type { EmulatorRequest } from './request.js';
import { route, toReply } from './router.js';
import type { EmulatorState } from './state.js';

/** A Node request as the router's `EmulatorRequest`. */
function fromNode(req: IncomingMessage): EmulatorRequest {
  const header = (name: string): string | undefined => {
    const v = req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  return {
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    header,
    hasBody: hasBody(req),
    body: () => readBody(req),
    controlAccess: () => networkControlAccess(req.socket.remoteAddress ?? '', header),
  };
}

/**
 * The Node server's request listener: a thin mount over the router (`route`), which the
 * in-process mount (`web.ts`) shares. `inFlight` records which response each socket is working
 * on, so the server's `clientError` listener (a body that stalls past the request timeout) can
 * answer through it instead of writing over it.
 */
export function createHandler(
  s: EmulatorState,
  inFlight: WeakMap<Duplex, ServerResponse> = new WeakMap(),
  ids: RequestIds = new RequestIds(),
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const rid = ids.next();
    const socket = req.socket;
    inFlight.set(socket, res);
    res.once('close', () => {
      if (inFlight.get(socket) === res) inFlight.delete(socket);
    });
    route(s, fromNode(req), rid)
      .then((a) => {
        if (res.headersSent || res.destroyed) return;
        if ('reset' in a) res.socket?.destroy();
        else send(res, a.rid, a.reply, a.head);
      })
      .catch((e: unknown) => {
        if (!res.headersSent && !res.destroyed) send(res, rid, toReply(e));
      });
  };
}
