import type { GateLimit } from '../gate/store';

/**
 * A browser's submit (`POST {basePath}/generations`) that says it takes `text/event-stream` in its
 * `Accept` and waits for a slot in the app's account gate is answered as server-sent events: a
 * `queue` event each time where it stands changes, then one `answer` event, the JSON answer it
 * would otherwise have had (its status and body: the 202 body, or the error body). A submit that
 * waits for no slot is answered as JSON, as for any other client.
 */
export const SUBMIT_EVENTS = { queue: 'queue', answer: 'answer' } as const;

/** A `queue` event's data: where the submit stands in the gate's line (every instance's, on a shared gate). */
export interface SubmitQueueEvent {
  /** Its place in line, 1 first. */
  position: number;
  /** What holds the line: `max_concurrent` (a slot frees when a generation ends), `per_minute`, or a 429's `retry_after`. */
  limit?: GateLimit;
  /**
   * The earliest it can go, in milliseconds from `as_of`, when known (the rate window, a 429's
   * `Retry-After`); absent while `max_concurrent` holds it. Relative, so a browser's clock set
   * differently from the server's reads it right.
   */
  earliest_in_ms?: number;
  /** When the server said it (ISO 8601). */
  as_of: string;
}

/** The `answer` event's data: the HTTP answer the submit would have had as JSON. */
export interface SubmitAnswerEvent {
  status: number;
  body: unknown;
}
