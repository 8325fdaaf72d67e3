import type { WebhookEvent } from '../webhooks/verify';

/**
 * Where verified webhook events meet waiting code: a receiver publishes each event it verified,
 * and `generations.wait()` subscribes to its generation, so it resolves on whichever comes
 * first, the webhook or the poll. Each client owns one (`client.events`); a shared
 * implementation (Redis pub/sub in `@mediagen/redis`) carries events across instances.
 */
export interface GenerationEvents {
  /** Hands a verified event to every waiter on its `data.generation_id`. */
  publish(event: WebhookEvent): void | Promise<void>;
  /** Calls `listener` for each event published for `generationId`; returns the unsubscribe. */
  subscribe(generationId: string, listener: (event: WebhookEvent) => void): () => void;
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
