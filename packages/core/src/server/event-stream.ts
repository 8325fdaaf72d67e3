import { RateLimitError } from '../errors';
import type { GenerationEvents } from '../events/generation-events';
import type { Generation } from '../types';
import { ERROR_CODES } from '../wire/error-codes';
import { errorReply, errorResponse } from './error-reply';
import type { MediaGenContext } from './options';
import type { GenerationSource } from './source';
import { SSE_HEADERS } from './sse-connection';
import { type EventFormat, feedChannel, type StreamHub, type StreamRefusal } from './stream-hub';

/** How many of the user's newest generations a feed sends on connect. */
const FEED_SNAPSHOT = 20;
/** How often a feed looks up an unanswered intent of its snapshot (a store read by key). */
const INTENT_CHECK_MS = 1_000;

const isTerminal = (status: string | undefined) => status === 'completed' || status === 'failed';

/**
 * The status order (spec: States): a stream's event id is its generation's rank, so a browser
 * that reconnects with `Last-Event-ID` is sent only what moved past what it saw.
 */
export function statusRank(status: string | undefined): number {
  if (status === 'pending') return 1;
  if (status === 'processing') return 2;
  return isTerminal(status) ? 3 : 0;
}

/** A generation's stream event: its id is the status rank. */
const generationEvent: EventFormat = (generation, json) => `id: ${statusRank(generation.status)}\ndata: ${json}\n\n`;
/** A feed event: its id names the generation too, as one feed carries many. */
const feedEvent: EventFormat = (generation, json) =>
  `id: ${generation.generation_id ?? generation.idempotency_key}.${statusRank(generation.status)}\ndata: ${json}\n\n`;
const encoder = new TextEncoder();
const errorEvent = (error: unknown) => encoder.encode(`event: error\ndata: ${JSON.stringify(errorReply(error).body)}\n\n`);

/** 503 TOO_MANY_STREAMS with Retry-After: the handler holds all the streams it allows. */
export function streamsFull(): Response {
  const { status, next } = ERROR_CODES.TOO_MANY_STREAMS;
  const body = { error: 'TOO_MANY_STREAMS', message: 'This server holds as many open streams as it allows.', next, request_id: null };
  return Response.json(body, { status, headers: { 'retry-after': '5' } });
}

/**
 * 503 TOO_MANY_STREAMS while the handler drains (`handler.drain()`): this instance takes no new
 * stream. `Connection: close`, so a balancer that retries a refused GET (HAProxy's
 * `retry-on 503` with `option redispatch`) sends it to another instance on a fresh connection.
 */
function streamsDraining(): Response {
  const { status, next } = ERROR_CODES.TOO_MANY_STREAMS;
  const body = { error: 'TOO_MANY_STREAMS', message: 'This server is shutting down and takes no new stream.', next, request_id: null };
  return Response.json(body, { status, headers: { 'retry-after': '1', connection: 'close' } });
}

/**
 * The answer to a stream `hub` refuses: 503 TOO_MANY_STREAMS when the handler is full, 429
 * RATE_LIMIT when this user holds `maxStreamsPerUser` (the user's own doing, so a 4xx; retryable,
 * so the browser's hook polls meanwhile and opens a stream again later).
 */
export function streamRefused(refusal: StreamRefusal, hub: StreamHub): Response {
  if (refusal === 'server') return streamsFull();
  if (refusal === 'draining') return streamsDraining();
  const { status, next } = ERROR_CODES.RATE_LIMIT;
  const message = `This user already holds ${hub.maxStreamsPerUser} open event streams, the most this server allows one user; close one, or poll the generation meanwhile.`;
  const body = { error: 'RATE_LIMIT', message };
  return errorResponse(new RateLimitError(message, { status, code: 'RATE_LIMIT', next, retryable: true, retryAfterMs: 5_000, body }));
}

/**
 * `GET /generations/:id/events` from its first step: `read` (the owner check, then a fresh
 * status read) and the stream after it. The client's events are heard from before the read
 * starts, because the stream watches the hub only once the read answers: a terminal webhook
 * published while the read is in flight would otherwise reach no one, and the read (the
 * service's state a moment earlier, or a replica lagging behind the webhook) would not show it.
 * What was heard is sent only once the read has passed the owner check.
 */
export async function freshGenerationStream(
  hub: StreamHub,
  events: GenerationEvents,
  id: string | undefined,
  read: () => Promise<Generation>,
  request: Request,
  owner: string | undefined,
): Promise<Response> {
  const heard = id ? events.listen(id) : undefined;
  try {
    const first = await read();
    // Nothing can be published between this check and the hub's watch: no await lies between them.
    const terminal = heard?.generation;
    return generationStream(hub, terminal && !isTerminal(first.status) ? terminal : first, request, owner);
  } finally {
    heard?.stop();
  }
}

/**
 * `GET /generations/:id/events`: the current state first (a fresh read, so a terminal state
 * reached while the browser was disconnected is never missed), skipped when `Last-Event-ID`
 * says the browser has it already; then each status change, from a webhook on any instance
 * or the shared poll; ends after a terminal state, which it always sends first unless the
 * browser had it at connect. `first` was read after the owner check.
 */
function generationStream(hub: StreamHub, first: Generation, request: Request, owner: string | undefined): Response {
  const id = first.generation_id;
  // An intent whose submit is not answered yet (`submitting`) has nothing to follow at the
  // service: its state, then the stream ends and the browser asks again in a second by the same
  // key, which then reads the generation (event id 0, so its first state is sent then).
  if (id === null) return intentStream(first);
  const claimed = Number.parseInt(request.headers.get('last-event-id') ?? '', 10) || 0;
  // The browser has the terminal state: 204 is what stops an EventSource reconnecting (HTML: server-sent events).
  if (isTerminal(first.status) && statusRank(first.status) <= claimed) return new Response(null, { status: 204 });
  const refused = hub.refusal(owner);
  if (refused) return streamRefused(refused, hub);
  let unwatch: (() => void) | undefined;
  const connection = hub.connect(owner, () => unwatch?.())!;
  // The header is the browser's claim: no one has seen a state past the one the generation is in,
  // so a claim beyond it (a forged or garbled id) is capped there, and the terminal state, ranked
  // above every running one, is always sent.
  let sent = Math.min(claimed, statusRank(first.status));
  const update = (generation: Generation) => {
    const rank = statusRank(generation.status);
    if (rank > sent || (rank === 0 && sent === 0)) {
      sent = Math.max(sent, rank);
      connection.send(id, hub.event(generation, generationEvent));
    }
    if (isTerminal(generation.status)) connection.end();
  };
  update(first);
  if (!connection.closed && !isTerminal(first.status)) {
    unwatch = hub.watch(id, {
      update,
      fail(error) {
        // The follow failed (the service down, the wait's deadline): say so and end; the browser reconnects.
        connection.send('error', errorEvent(error));
        connection.end();
      },
    });
    if (connection.closed) unwatch();
  }
  request.signal?.addEventListener('abort', () => connection.abort(), { once: true });
  return connection.response;
}

export interface FeedInput<Platform> {
  hub: StreamHub;
  source: GenerationSource;
  context: MediaGenContext<Platform> & { request: Request };
  /**
   * Whether the owner may see this state (the handler's `authorize` and `allowModels`). Kept
   * for the stream's life: it holds the request only when the app's `authorize` needs it.
   */
  visible(generation: Generation): boolean | Promise<boolean>;
}

/**
 * `GET /generations/events`: the current user's generations. On connect, the newest
 * `FEED_SNAPSHOT` as the source lists them (each then followed until terminal); then each
 * status change of those and of every generation the user submits later, on any instance. It
 * never ends by itself; each event's `data` is one generation, keyed by `generation_id`.
 */
export async function feedStream<Platform>(input: FeedInput<Platform>): Promise<Response> {
  const { hub, source, context, visible } = input;
  const follows = new Map<string, () => void>();
  let unsubscribe: (() => void) | undefined;
  const refused = hub.refusal(context.owner);
  if (refused) return streamRefused(refused, hub);
  const connection = hub.connect(context.owner, () => {
    unsubscribe?.();
    for (const stop of follows.values()) stop();
    follows.clear();
  })!;
  context.request.signal?.addEventListener('abort', () => connection.abort(), { once: true });

  // Keyed by generation, an unanswered intent by its idempotency key: a slow reader gets each one's latest state.
  const send = (generation: Generation) =>
    connection.send(generation.generation_id ?? String(generation.idempotency_key), hub.event(generation, feedEvent));
  const sendIfVisible = (generation: Generation) => {
    if (connection.closed) return;
    const shown = visible(generation);
    // Synchronous when the app has no async rule: a fan-out to thousands of streams stays one pass.
    if (shown === true) return send(generation);
    if (shown !== false) void shown.then((ok) => ok && !connection.closed && send(generation));
  };
  const follow = (id: string) => {
    if (connection.closed || follows.has(id)) return;
    if (follows.size >= hub.feedFollowMax) {
      const [oldest, stop] = follows.entries().next().value as [string, () => void];
      follows.delete(oldest);
      stop();
    }
    let over = false;
    // Terminal, or the follow failed (left for the browser's next connect or its status read):
    // the id stays, so an announce of it again is not followed again, but its watch is let go.
    const unfollow = () => {
      over = true;
      const stop = follows.get(id);
      if (stop) follows.set(id, followed), stop();
    };
    const stop = hub.watch(id, {
      update(generation) {
        sendIfVisible(generation);
        if (isTerminal(generation.status)) unfollow();
      },
      fail: unfollow,
    });
    // Over already when the watch began with a terminal state another stream's follow had.
    if (connection.closed || over) stop();
    if (!connection.closed) follows.set(id, over ? followed : stop);
  };
  /**
   * An intent whose submit is not answered yet (after a crash, its resend may come from another
   * instance, which announces nothing here): sent as it is, then read from the source by its key
   * every `INTENT_CHECK_MS` until it has its id, sent again (the page swaps the entry by its
   * key) and followed from there.
   */
  const awaitAnswer = (entry: { [key: string]: unknown }) => {
    const key = entry.idempotency_key;
    if (typeof key !== 'string') return;
    sendIfVisible(entry as unknown as Generation);
    const check = async () => {
      if (connection.closed) return;
      const found = (await Promise.resolve(source.get(key, context.owner)).catch(() => undefined)) as Generation | undefined;
      if (connection.closed) return;
      if (typeof found?.generation_id !== 'string') return void later();
      sendIfVisible(found);
      follow(found.generation_id);
    };
    const later = () => (setTimeout(check, INTENT_CHECK_MS) as { unref?(): void }).unref?.();
    later();
  };
  try {
    unsubscribe = hub.onSubmitted(await feedChannel(context.owner), follow);
    const page = await source.list(context.owner, { limit: FEED_SNAPSHOT });
    for (const entry of [...page.generations].reverse()) {
      const status = typeof entry.status === 'string' ? entry.status : undefined;
      // A terminal entry the source kept whole is sent as it is; the rest are read and followed.
      if (isTerminal(status) && 'model' in entry) sendIfVisible(entry as unknown as Generation);
      else if (entry.generation_id !== null) follow(entry.generation_id);
      else awaitAnswer(entry);
    }
  } catch (error) {
    connection.send('error', errorEvent(error));
    connection.end();
  }
  if (connection.closed) unsubscribe?.();
  return connection.response;
}

function intentStream(intent: Generation): Response {
  const body = `retry: ${INTENT_CHECK_MS}\nid: 0\ndata: ${JSON.stringify(intent)}\n\n`;
  return new Response(body, { headers: SSE_HEADERS });
}

/** What a feed keeps for an id it followed to the end: nothing left to stop. */
const followed = () => {};
