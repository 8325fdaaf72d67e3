/** One server-sent event (spec: HTML, "Interpreting an event stream"). */
export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * The most characters one event (its data lines, or any one line) may hold. A generation's state
 * is a few kilobytes; a stream past this is not the handler's (a proxy's endless page, a broken
 * upstream), and the parser stops rather than grow without end.
 */
export const SSE_MAX_EVENT_CHARS = 1 << 20;

/**
 * Incremental text/event-stream parser: feed it decoded text as it arrives; it calls `onEvent`
 * per complete event and `onRetry` per `retry:` field. Comments (`: ping`) are skipped here;
 * the reader counts any bytes as a sign of life. Linear in the text however it is split, and
 * bounded: past `SSE_MAX_EVENT_CHARS` in one event or line, `feed` throws and `overflowed` is set.
 */
export function createSseParser(onEvent: (message: SseMessage) => void, onRetry?: (ms: number) => void) {
  /** The current line's start, with no line end in it (each chunk is scanned once). */
  let pending = '';
  let data: string[] = [];
  let dataChars = 0;
  let event = '';
  let id: string | undefined;
  let afterCr = false;
  let overflowed = false;
  // Per parser: a /g pattern keeps its position, and an onEvent may feed another parser.
  const lineEnd = /\r\n|\r|\n/g;
  const overflow = () => {
    overflowed = true;
    return new RangeError(`event stream: an event over ${SSE_MAX_EVENT_CHARS} characters`);
  };
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n'), id });
      data = [];
      dataChars = 0;
      event = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') {
      dataChars += value.length + 1;
      if (dataChars > SSE_MAX_EVENT_CHARS) throw overflow();
      data.push(value);
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry?.(Number(value));
  };
  return {
    feed(text: string) {
      if (overflowed) throw overflow();
      // A '\r' ends a line at once; a '\n' straight after it (even in the next chunk) is its pair.
      let start = afterCr && text.startsWith('\n') ? 1 : 0;
      afterCr = false;
      lineEnd.lastIndex = start;
      for (let match = lineEnd.exec(text); match; match = lineEnd.exec(text)) {
        const whole = pending + text.slice(start, match.index);
        pending = '';
        start = match.index + match[0].length;
        if (whole.length > SSE_MAX_EVENT_CHARS) throw overflow();
        line(whole);
        if (match[0] === '\r' && start === text.length) afterCr = true;
      }
      pending += text.slice(start);
      if (pending.length > SSE_MAX_EVENT_CHARS) throw overflow();
    },
    /** The id of the last event, for `Last-Event-ID` on a reconnect. */
    get lastEventId() {
      return id;
    },
    /** The stream went past `SSE_MAX_EVENT_CHARS`: nothing more is read from it. */
    get overflowed() {
      return overflowed;
    },
  };
}
