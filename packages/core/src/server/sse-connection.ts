import { DIRECT_EVENTS, type DirectEvents, type EventSink } from './direct-events';

/**
 * One open server-sent-events response, bounded whatever its reader does: each generation has
 * at most one event waiting (a newer state replaces an unsent older one, since only the latest
 * matters), and nothing is queued past what the reader's side takes, so a reader that stops
 * reading holds one event per generation it follows, never a backlog.
 *
 * Two ways out. On a Web runtime the reader pulls the `response` body, a Web stream with a
 * one-chunk high-water mark. On Node the Node layer takes over before reading (`attach`, see
 * `direct-events.ts`) and each event is written to the Node response as it comes, until the
 * socket says it is full.
 */
/** What every event-stream answer carries (a long-lived stream, or one that sends a state and ends). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

export class SseConnection implements DirectEvents {
  /** Events waiting per key (a generation id), in the order last queued; made when one has to wait. */
  #pending: Map<string, Uint8Array> | undefined;
  /** The Web body and its controller, until a sink takes over. */
  #response: Response | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** The last chunk given to the Web body: the one it holds unread when a sink takes over. */
  #enqueued: Uint8Array | undefined;
  #sink: EventSink | undefined;
  /** The sink's socket is full: nothing more until `drained()`. */
  #full = false;
  #ending = false;
  #closed = false;
  readonly #onClose: () => void;

  constructor(onClose: () => void, headers: Record<string, string> = {}) {
    this.#onClose = onClose;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          // The reader took the chunk: nothing is held unread any more.
          this.#enqueued = undefined;
          this.#flush();
        },
        cancel: () => {
          // The reader dropped the body, and with it what the body held.
          this.#enqueued = undefined;
          this.#finish();
        },
      },
      { highWaterMark: 1 },
    );
    (stream as { [DIRECT_EVENTS]?: DirectEvents })[DIRECT_EVENTS] = this;
    this.#response = new Response(stream, {
      headers: { ...SSE_HEADERS, ...headers },
    });
  }

  /** The answer to hand back, its body this stream; let go of once a sink takes over (read it before). */
  get response(): Response {
    return this.#response!;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Queues `bytes` (whole SSE event lines) under `key`, replacing an unsent one of the same key.
   * The bytes may be shared with other connections: they are never written into.
   */
  send(key: string, bytes: Uint8Array): void {
    if (this.#closed || this.#ending) return;
    // The common case on a fan-out: nothing waits and the reader keeps up, so out it goes.
    if (this.#pending === undefined && this.#ready()) return this.#write(bytes);
    this.#pending ??= new Map();
    this.#pending.delete(key);
    this.#pending.set(key, bytes);
    this.#flush();
  }

  /** A comment line (`bytes`) through proxies that close idle connections; skipped while events wait. */
  ping(bytes: Uint8Array): void {
    if (this.#pending === undefined && this.#ready()) this.#write(bytes);
  }

  /** Ends the stream once what is queued has been read. */
  end(): void {
    this.#ending = true;
    this.#flush();
  }

  /** Ends it now (the reader went away, or the handler is shutting down). */
  abort(): void {
    if (this.#closed) return;
    try {
      if (this.#sink) this.#sink.end();
      else this.#controller?.close();
    } catch {
      // Already closed or errored by the reader.
    }
    this.#finish();
  }

  /** @internal The Node layer's way in: the unread Web body is let go, and `sink` gets every event from here on. */
  attach(sink: EventSink): void {
    if (this.#sink) return;
    // With no reader yet, the body may hold the one chunk its high-water mark let in: it goes first.
    const unread = (this.#controller?.desiredSize ?? 1) <= 0 ? this.#enqueued : undefined;
    this.#sink = sink;
    this.#response = undefined;
    this.#controller = undefined;
    this.#enqueued = undefined;
    if (unread) this.#write(unread);
    // Ended before the Node layer came (nothing else to send): what the body held still goes first.
    if (this.#closed) return void sink.end();
    this.#flush();
  }

  /** @internal The sink's socket took what it held. */
  drained(): void {
    this.#full = false;
    this.#flush();
  }

  /** Whether the reader's side takes a chunk now. */
  #ready(): boolean {
    if (this.#closed) return false;
    if (this.#sink) return !this.#full;
    return (this.#controller?.desiredSize ?? 0) > 0;
  }

  #write(bytes: Uint8Array): void {
    if (!this.#sink) {
      // A Web reader owns the chunks it is given (it may transfer them): its own copy.
      this.#enqueued = bytes.slice();
      this.#controller?.enqueue(this.#enqueued);
      return;
    }
    try {
      this.#full = this.#sink.write(bytes) === false;
    } catch {
      this.abort();
    }
  }

  #flush(): void {
    const pending = this.#pending;
    while (pending !== undefined && pending.size > 0 && this.#ready()) {
      const [key, bytes] = pending.entries().next().value as [string, Uint8Array];
      pending.delete(key);
      this.#write(bytes);
    }
    if (pending?.size === 0) this.#pending = undefined;
    if (this.#ending && this.#pending === undefined) this.abort();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = undefined;
    this.#onClose();
  }
}
