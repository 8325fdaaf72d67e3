import type { GateWait } from '../gate/store';
import type { SubmitResponse } from '../types';
import { SUBMIT_EVENTS, type SubmitAnswerEvent, type SubmitQueueEvent } from '../wire/submit-events';
import { errorReply } from './error-reply';
import { SSE_HEADERS } from './sse-connection';

/** A waiting submit's stream says it is alive this often while its place does not move (proxies drop idle connections). */
const PING_MS = 15_000;
/** A change of the earliest time smaller than this is not news (it is recomputed at every ask of the gate). */
const EARLIEST_STEP_MS = 1_000;

/** Whether the browser takes a submit's queue events: `text/event-stream` named in its `Accept`. */
export function wantsQueueEvents(request: Request): boolean {
  return /(?:^|,)\s*text\/event-stream\s*(?:[;,]|$)/i.test(request.headers.get('accept') ?? '');
}

const encoder = new TextEncoder();
const event = (name: string, data: unknown) => encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

const sameWait = (a: GateWait, b: GateWait) =>
  a.position === b.position &&
  a.limit === b.limit &&
  (a.notBefore === undefined) === (b.notBefore === undefined) &&
  Math.abs((a.notBefore ?? 0) - (b.notBefore ?? 0)) < EARLIEST_STEP_MS;

export function queueEventOf(wait: GateWait, now: number): SubmitQueueEvent {
  return {
    position: wait.position,
    ...(wait.limit && { limit: wait.limit }),
    ...(wait.notBefore !== undefined && { earliest_in_ms: Math.max(0, Math.round(wait.notBefore - now)) }),
    as_of: new Date(now).toISOString(),
  };
}

/**
 * A browser's submit that takes queue events: run as JSON (its 202, or its throw, answered by the
 * route as ever) unless it waits for a gate slot before it is answered. From its first wait the
 * answer is an event stream (`SUBMIT_EVENTS`): a `queue` event at each change of its place, and
 * one `answer` event with the status and body the JSON answer would have had. A reader that goes
 * away (the tab closed, `stop()`) stops the submit if it has not been sent: nothing is charged.
 * `finished` settles when the stream has ended, for the handler's drain.
 */
export async function submitWithQueue(
  submit: (onQueue: (wait: GateWait) => void, signal: AbortSignal) => Promise<SubmitResponse>,
  onFailure: (error: unknown) => void,
): Promise<{ response: Response; finished?: Promise<void> }> {
  const gone = new AbortController();
  let tell: ((wait: GateWait) => void) | undefined;
  let firstWait!: (wait: GateWait) => void;
  const waited = new Promise<{ wait: GateWait }>((resolve) => (firstWait = (wait) => resolve({ wait })));
  const submitting = submit((wait) => (tell ? tell(wait) : firstWait(wait)), gone.signal);
  // Answered (or refused) before any wait: the JSON answer, exactly as without queue events.
  const first = await Promise.race([submitting.then((body) => ({ body })), waited]);
  if ('body' in first) return { response: Response.json(first.body, { status: 202 }) };

  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let last: GateWait | undefined;
  const send = (chunk: Uint8Array) => {
    if (!open) return;
    try {
      controller.enqueue(chunk);
    } catch {
      open = false;
    }
  };
  tell = (wait) => {
    // Told at every ask of the gate: only a change is sent, and none to a reader that is behind
    // (the next ask, a moment later, tells it again), so an unread stream holds no backlog.
    if ((last && sameWait(last, wait)) || (controller.desiredSize ?? 1) <= 0) return;
    last = wait;
    send(event(SUBMIT_EVENTS.queue, queueEventOf(wait, Date.now())));
  };
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => {
      open = false;
      gone.abort();
    },
  });
  tell(first.wait);
  const ping = setInterval(() => (controller.desiredSize ?? 1) > 0 && send(encoder.encode(': ping\n\n')), PING_MS);
  const finished = submitting.then(
    (submitted): SubmitAnswerEvent => ({ status: 202, body: submitted }),
    (error: unknown): SubmitAnswerEvent => {
      const reply = errorReply(error);
      // Stopped because its reader went away: the browser's doing, not a failure of the app.
      if (reply.status >= 500 && !gone.signal.aborted) onFailure(error);
      return { status: reply.status, body: reply.body };
    },
  );
  const ended = finished.then((answer) => {
    clearInterval(ping);
    send(event(SUBMIT_EVENTS.answer, answer));
    if (open) controller.close();
    open = false;
  });
  return { response: new Response(body, { status: 200, headers: SSE_HEADERS }), finished: ended };
}
