import { MediaGenClient } from '@mediagen/nestjs';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { SampleConfig } from './config.js';
import { GenerationStore } from './store.js';
import { SAMPLE_CONFIG } from './tokens.js';

/**
 * The fallback for a webhook that never came (spec receiver rule 8): generations still running
 * with no news for a while are read from the status endpoint.
 */
@Injectable()
export class Poller implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly #logger = new Logger('Poller');
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    private readonly client: MediaGenClient,
    private readonly store: GenerationStore,
    @Inject(SAMPLE_CONFIG) private readonly config: SampleConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.#timer = setInterval(() => void this.tick(), this.config.pollIntervalMs);
    this.#timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.#timer);
  }

  async tick(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (const id of this.store.stale(this.config.pollStaleAfterMs)) {
        try {
          this.store.applyPoll(await this.client.generations.get(id, { maxRetries: 1 }));
        } catch (error) {
          this.#logger.warn(`poll of ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
