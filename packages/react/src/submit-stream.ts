import type { GateLimit } from '@mediagen/core';
import { SUBMIT_EVENTS, type SubmitAnswerEvent, type SubmitQueueEvent } from '@mediagen/core/wire';
import { readJson } from './read-json';
import { createSseParser } from './sse';

/** Where a submit waits in the app's gate for a slot, as the handler said (`useGenerate().queue`). */
export interface SubmitQueue {
  /** Its place in line, 1 first (among every instance's submits, on a shared gate). */
  position: number;
  /** What holds the line: `max_concurrent` (a slot frees when a generation ends), `per_minute`, or a 429's `retry_after`. */
  limit: GateLimit | undefined;
  /**
   * The earliest it can go (epoch ms, this browser's clock), when the handler knows it: the rate
   * window or a 429's `Retry-After`. Undefined while `max_concurrent` holds it.
   */
  earliestAt: number | undefined;
}

const LIMITS: readonly string[] = ['max_concurrent', 'per_minute', 'retry_after'];

/** A `queue` event's data as this browser keeps it, or undefined when it is not one (checked: it is outside input). */
function queueOf(data: Partial<SubmitQueueEvent> | null): SubmitQueue | undefined {
  const position = data?.position;
  if (!Number.isSafeInteger(position) || (position as number) < 1) return undefined;
  const wait = data!.earliest_in_ms;
  return {
    position: position as number,
    limit: LIMITS.includes(data!.limit as string) ? data!.limit : undefined,
    // Counted from when it arrived, on this browser's clock (the server's may be set otherwise).
    earliestAt: typeof wait === 'number' && wait >= 0 && wait < 864e5 ? Date.now() + wait : undefined,
  };
}

/**
 * The submit's answer as status and body: read as JSON, or, when the handler streams it while the
 * submit waits in its gate (`SUBMIT_EVENTS`), from its `answer` event, each `queue` event told to
 * `onQueue` on the way. Undefined when the stream ended without an answer (cut off: it may have
 * been sent; the same key resent answers the same generation).
 */
export async function readSubmitAnswer(
  response: Response,
  onQueue: (queue: SubmitQueue) => void,
): Promise<{ status: number; body: unknown } | undefined> {
  if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
    return { status: response.status, body: await readJson(response) };
  let answer: SubmitAnswerEvent | undefined;
  const parser = createSseParser(({ event, data }) => {
    try {
      const parsed = JSON.parse(data);
      if (event === SUBMIT_EVENTS.answer && Number.isSafeInteger(parsed?.status)) answer = parsed;
      const queue = event === SUBMIT_EVENTS.queue ? queueOf(parsed) : undefined;
      if (queue) onQueue(queue);
    } catch {
      // Not JSON: not the handler's event; skipped.
    }
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
  try {
    while (reader && !answer) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } catch {
    // Cut off, or past the parser's bound: no answer.
  }
  reader?.cancel().catch(() => {});
  return answer;
}
