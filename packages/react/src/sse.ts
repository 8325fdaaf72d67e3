/** One server-sent event (spec: HTML, "Interpreting an event stream"). */
export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * Incremental text/event-stream parser: feed it decoded text as it arrives; it calls `onEvent`
 * per complete event and `onRetry` per `retry:` field. Comments (`: ping`) are skipped here;
 * the reader counts any bytes as a sign of life.
 */
export function createSseParser(onEvent: (message: SseMessage) => void, onRetry?: (ms: number) => void) {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  let afterCr = false;
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n'), id });
      data = [];
      event = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry?.(Number(value));
  };
  return {
    feed(text: string) {
      // A '\r' ends a line at once; a '\n' straight after it (even in the next chunk) is its pair.
      if (afterCr && text.startsWith('\n')) text = text.slice(1);
      afterCr = false;
      buffer += text;
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (!match) break;
        line(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
        if (match[0] === '\r' && buffer === '') afterCr = true;
      }
    },
    /** The id of the last event, for `Last-Event-ID` on a reconnect. */
    get lastEventId() {
      return id;
    },
  };
}
