/**
 * How a Node server serves an event stream without reading its Web body. The body of a stream
 * the handler answers carries, under this key, the connection that fills it; the Node layer
 * (`@mediagen/core/node`) hands that connection the Node response to write to instead, and the
 * Web stream, never read, is let go. Per open stream that saves the Web stream, its reader, and
 * a promise and a read-loop turn per event. Internal: a Web runtime never looks at the key and
 * reads the body as any other. Keyed on the body, not the `Response`, because a `Response`
 * rebuilt around the same body (CORS headers added) keeps it; `Symbol.for`, so the CJS and the
 * ESM build agree on it.
 */
export const DIRECT_EVENTS: unique symbol = Symbol.for('mediagen.direct-events');

/** Where a direct event stream writes: Node's `ServerResponse` as it is. */
export interface EventSink {
  /** Sends the bytes on; `false` once the socket is full (then nothing more until `drained()`). */
  write(bytes: Uint8Array): unknown;
  end(): unknown;
}

/** What an event stream's body carries under `DIRECT_EVENTS`. */
export interface DirectEvents {
  /** Takes over from the unread Web body: from now on every event goes to `sink`. */
  attach(sink: EventSink): void;
  /** The sink's socket took what it held (Node's `drain`): what waited is sent. */
  drained(): void;
  /** The reader went away (Node's `close`): the stream is over. */
  abort(): void;
}

/** The direct writer of `body`, if it has one and nobody has started reading it. */
export function directEventsOf(body: ReadableStream<Uint8Array> | null): DirectEvents | undefined {
  if (!body || body.locked) return undefined;
  return (body as { [DIRECT_EVENTS]?: DirectEvents })[DIRECT_EVENTS];
}
