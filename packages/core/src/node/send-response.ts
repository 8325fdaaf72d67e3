import { directEventsOf } from '../server/direct-events';
import { canStreamEvents, sendEventStream } from './send-event-stream';
import type { NodeResponseLike } from './types';

/**
 * Writes a Web `Response` (status, headers, body) to a Node response. A body is streamed chunk
 * by chunk (server-sent events reach the browser as they happen); a reader that hangs up
 * cancels the body, so whatever produces it stops. An event stream of core's handler skips the
 * Web body: its connection writes to `res` itself (`sendEventStream`).
 */
export async function sendWebResponse(res: NodeResponseLike, response: Response): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== 'set-cookie') res.setHeader(name, value);
  // Each cookie its own header line: joined with commas they would be one broken cookie.
  const cookies = response.headers.getSetCookie?.() ?? [];
  if (cookies.length) res.setHeader('set-cookie', cookies);
  if (!response.body || typeof res.write !== 'function') {
    res.end(new Uint8Array(await response.arrayBuffer()));
    return;
  }
  const events = directEventsOf(response.body);
  if (events && canStreamEvents(res)) return sendEventStream(res, events);
  const reader = response.body.getReader();
  let closed = false;
  res.once?.('close', () => {
    closed = true;
    reader.cancel().catch(() => {});
  });
  res.flushHeaders?.();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      // Wait out a full socket: a slow reader then holds the producer back (an event stream
      // coalesces meanwhile) rather than growing the response's buffer without bound.
      if (res.write?.(value) === false && !closed) await drained(res);
    }
  } catch {
    // The body failed midway (or was cancelled): end what was sent.
  }
  res.end();
}

function drained(res: NodeResponseLike): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off?.('drain', done);
      res.off?.('close', done);
      resolve();
    };
    res.once?.('drain', done);
    res.once?.('close', done);
    if (!res.once) resolve();
  });
}
