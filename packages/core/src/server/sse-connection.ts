const encoder = new TextEncoder();

/**
 * One open server-sent-events response, bounded whatever its reader does: each generation has
 * at most one event waiting (a newer state replaces an unsent older one, since only the latest
 * matters), and nothing is queued past the stream's one-chunk high-water mark, so a reader that
 * stops reading holds one event per generation it follows, never a backlog.
 */
export class SseConnection {
  readonly response: Response;
  /** Event text per key (a generation id), in the order first queued. */
  readonly #pending = new Map<string, string>();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
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
        pull: () => this.#flush(),
        cancel: () => this.#finish(),
      },
      { highWaterMark: 1 },
    );
    this.response = new Response(stream, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        ...headers,
      },
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues `text` (whole SSE event lines) under `key`, replacing an unsent one of the same key. */
  send(key: string, text: string): void {
    if (this.#closed || this.#ending) return;
    this.#pending.delete(key);
    this.#pending.set(key, text);
    this.#flush();
  }

  /** A comment line through proxies that close idle connections; skipped while events wait. */
  ping(): void {
    if (this.#closed || this.#pending.size > 0 || (this.#controller.desiredSize ?? 0) <= 0) return;
    this.#controller.enqueue(encoder.encode(': ping\n\n'));
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
      this.#controller.close();
    } catch {
      // Already closed or errored by the reader.
    }
    this.#finish();
  }

  #flush(): void {
    if (this.#closed) return;
    while (this.#pending.size > 0 && (this.#controller.desiredSize ?? 0) > 0) {
      const [key, text] = this.#pending.entries().next().value as [string, string];
      this.#pending.delete(key);
      this.#controller.enqueue(encoder.encode(text));
    }
    if (this.#ending && this.#pending.size === 0) this.abort();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending.clear();
    this.#onClose();
  }
}
