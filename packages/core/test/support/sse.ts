/** One server-sent event as a browser's EventSource would see it (comments kept, for heartbeat checks). */
export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** Reads a text/event-stream body event by event. */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
  let buffer = '';
  let done = false;
  return {
    /** The next event, or undefined once the stream ended. */
    async next(): Promise<SseEvent | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) event.comment = line.slice(1).trim();
            else {
              const colon = line.indexOf(':');
              const field = line.slice(0, colon) as keyof SseEvent;
              event[field] = line.slice(colon + 1).replace(/^ /, '');
            }
          }
          return event;
        }
        if (done) return undefined;
        const chunk = await reader.read();
        if (chunk.done) done = true;
        else buffer += chunk.value;
      }
    },
    /** Events up to the first `data` event that `until` accepts (inclusive), or to the end. */
    async until(until: (data: Record<string, any>) => boolean): Promise<SseEvent[]> {
      const seen: SseEvent[] = [];
      for (;;) {
        const event = await this.next();
        if (!event) return seen;
        seen.push(event);
        if (event.data && event.event === undefined && until(JSON.parse(event.data))) return seen;
      }
    },
    /** Every event to the end of the stream. */
    async rest(): Promise<SseEvent[]> {
      return this.until(() => false);
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

/** The generations the `data` events carry (errors and comments left out). */
export const dataOf = (events: SseEvent[]) =>
  events.filter((e) => e.data !== undefined && e.event === undefined).map((e) => JSON.parse(e.data!) as Record<string, any>);
