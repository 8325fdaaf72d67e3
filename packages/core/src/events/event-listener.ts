import type { WebhookEvent } from '../webhooks/verify';
import type { GenerationEvents } from './generation-events';

/** A wait's ear on `client.events`: the first terminal event for one generation. */
export interface TerminalEventListener {
  /** The terminal event heard so far, if any. */
  readonly event: WebhookEvent | undefined;
  /** Resolves when it is heard (never rejects). */
  readonly heard: Promise<void>;
  /** Unsubscribes; safe to call more than once. */
  stop(): void;
}

/**
 * Subscribes before the first status read, so an event published while that read is in flight
 * is not missed. Only `completed`/`failed` events for this id count: a future event type (the
 * spec allows new ones) never ends a wait. A failing `subscribe` leaves the wait polling.
 */
export function listenForTerminalEvent(events: GenerationEvents | undefined, generationId: string): TerminalEventListener {
  let event: WebhookEvent | undefined;
  let resolve!: () => void;
  const heard = new Promise<void>((r) => (resolve = r));
  let unsubscribe: (() => void) | undefined;
  const listener = (candidate: WebhookEvent) => {
    const data = candidate?.data;
    if (event || data?.generation_id !== generationId) return;
    if (data.status !== 'completed' && data.status !== 'failed') return;
    event = candidate;
    resolve();
  };
  try {
    unsubscribe = events?.subscribe(generationId, listener);
  } catch {
    unsubscribe = undefined;
  }
  return {
    get event() {
      return event;
    },
    heard,
    stop() {
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
