import type { DirectEvents } from '../server/direct-events';
import type { NodeResponseLike } from './types';

/** A Node response that says when its socket drains and when it closes: what a direct event stream needs. */
export type EventStreamResponse = NodeResponseLike & Required<Pick<NodeResponseLike, 'write' | 'on' | 'once' | 'off'>>;

export function canStreamEvents(res: NodeResponseLike): res is EventStreamResponse {
  return typeof res.write === 'function' && typeof res.on === 'function' && typeof res.once === 'function' && typeof res.off === 'function';
}

/**
 * Serves one of the handler's event streams straight onto the Node response (status and
 * headers already set): the connection writes each event to `res` itself, one `write` per
 * event and no Web stream, reader or promise per event in between. A full socket holds it back
 * until `drain` (events coalesce meanwhile, as on the Web path); the browser going away (`close`)
 * ends it, which lets go of what it follows. Resolves once the response is over.
 */
export function sendEventStream(res: EventStreamResponse, events: DirectEvents): Promise<void> {
  if (res.destroyed) {
    // The browser left before the answer: nothing to write, and no `close` is coming.
    events.abort();
    return Promise.resolve();
  }
  res.flushHeaders?.();
  return new Promise((resolve) => {
    const drained = () => events.drained();
    res.on('drain', drained);
    res.once('close', () => {
      res.off('drain', drained);
      events.abort();
      resolve();
    });
    events.attach(res);
  });
}
