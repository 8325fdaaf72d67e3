import { isTerminal } from '../resources/normalize';
import type { Generation } from '../types';
import type { WebhookEvent } from '../webhooks/verify';
import type { GenerationEvents } from './generation-events';
import { generationFromEvent } from './generation-from-event';

/** A wait's ear on `client.events`: the first terminal event for one generation. */
export interface TerminalEventListener {
  /** The Generation the terminal event describes (see `generationFromEvent`), once heard. */
  readonly generation: Generation | undefined;
  /**
   * Aborted when the event is heard or the caller's signal fires (with its reason): a poll
   * interval sleeps on this one signal, so either ends it and its timer is cleared.
   */
  readonly signal: AbortSignal;
  /** Unsubscribes; safe to call more than once. */
  stop(): void;
}

/**
 * `GenerationEvents.listen` built on its `subscribe`: `MemoryGenerationEvents.listen` (which
 * `RedisGenerationEvents` and custom implementations reuse). It lives behind the events object, not in the client, so an app with no webhook receiver does
 * not ship it. Subscribes at once (the client calls it before the first status read, so an event
 * published while that read is in flight is not missed). Only `completed`/`failed` events for
 * this id count: a future event type (the spec allows new ones) never ends a wait. A failing
 * `subscribe` leaves the wait polling.
 */
export function listenForTerminalEvent(
  events: Pick<GenerationEvents, 'subscribe'>,
  generationId: string,
  caller: AbortSignal | undefined,
): TerminalEventListener {
  let generation: Generation | undefined;
  const ended = new AbortController();
  const onAbort = () => ended.abort(caller?.reason);
  caller?.addEventListener('abort', onAbort, { once: true });
  if (caller?.aborted) onAbort();
  let unsubscribe: (() => void) | undefined;
  const listener = (candidate: WebhookEvent) => {
    const data = candidate?.data;
    if (generation || data?.generation_id !== generationId) return;
    if (!isTerminal(data)) return;
    generation = generationFromEvent(data);
    ended.abort();
  };
  try {
    unsubscribe = events.subscribe(generationId, listener);
  } catch {
    // A store that cannot subscribe: the wait polls (unsubscribe stays undefined).
  }
  return {
    get generation() {
      return generation;
    },
    signal: ended.signal,
    stop() {
      caller?.removeEventListener('abort', onAbort);
      const done = unsubscribe;
      unsubscribe = undefined;
      try {
        done?.();
      } catch {
        // Nothing to do: the listener ignores anything after this anyway.
      }
    },
  };
}
