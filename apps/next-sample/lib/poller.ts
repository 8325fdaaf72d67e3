import type { MediaGenClient } from '@mediagen/core';
import type { GenerationStore } from './store';

export interface PollerOptions {
  /** How often to look for generations with no news. Default 5 s. */
  intervalMs?: number;
  /** Poll a generation once it has had no news (no webhook) for this long. Default 15 s. */
  staleAfterMs?: number;
}

/**
 * The fallback for a webhook that never came (spec receiver rule 8): generations still running
 * with no news for a while are read from the status endpoint. `store` is asked for on each
 * tick, so starting the poller opens no database. Returns a stop function.
 */
export function startPoller(client: MediaGenClient, store: () => GenerationStore, options: PollerOptions = {}): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      for (const id of store().stale(options.staleAfterMs ?? 15_000)) {
        try {
          store().applyPoll(await client.generations.get(id, { maxRetries: 1 }));
        } catch (error) {
          console.warn(`poll of ${id} failed:`, error instanceof Error ? error.message : error);
        }
      }
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), options.intervalMs ?? 5_000);
  timer.unref();
  return () => clearInterval(timer);
}
