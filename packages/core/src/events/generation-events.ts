import type { WebhookEvent } from '../webhooks/verify';
import { listenForTerminalEvent, type TerminalEventListener } from './event-listener';

/**
 * Where verified webhook events meet waiting code: a receiver publishes each event it verified,
 * and `generations.wait()` subscribes to its generation, so it resolves on whichever comes
 * first, the webhook or the poll. A client has one once given (`new MediaGenClient({ events })`)
 * or once a webhook receiver is given the client (it installs a `MemoryGenerationEvents`); a
 * shared implementation (Redis pub/sub in `@mediagen/redis`) carries events across instances.
 */
export interface GenerationEvents {
  /** Hands a verified event to every waiter on its `data.generation_id`. */
  publish(event: WebhookEvent): void | Promise<void>;
  /** Calls `listener` for each event published for `generationId`; returns the unsubscribe. */
  subscribe(generationId: string, listener: (event: WebhookEvent) => void): () => void;
  /**
   * What `wait()` calls before its first status read: hears the generation's first terminal
   * event until `stop()`. The racing code lives here, not in the client, so apps with no
   * receiver do not ship it. A custom implementation extends `MemoryGenerationEvents` (whose
   * `listen` is built on `this.subscribe`) or hands `listen` to one it delivers events to.
   */
  listen(generationId: string, signal?: AbortSignal): TerminalEventListener;
}

/** In-process events: right for one instance (receiver and waiter in the same process). */
export class MemoryGenerationEvents implements GenerationEvents {
  readonly #listeners = new Map<string, Set<(event: WebhookEvent) => void>>();

  publish(event: WebhookEvent): void {
    const id = event?.data?.generation_id;
    if (typeof id !== 'string') return;
    for (const listener of [...(this.#listeners.get(id) ?? [])]) {
      try {
        listener(event);
      } catch {
        // One waiter's failure must not keep the event from the others.
      }
    }
  }

  listen(generationId: string, signal?: AbortSignal): TerminalEventListener {
    return listenForTerminalEvent(this, generationId, signal);
  }

  subscribe(generationId: string, listener: (event: WebhookEvent) => void): () => void {
    let set = this.#listeners.get(generationId);
    if (!set) this.#listeners.set(generationId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(generationId) === set) this.#listeners.delete(generationId);
    };
  }
}
