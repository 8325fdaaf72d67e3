import { OnGenerationEvent, type WebhookEvent } from '@mediagen/nestjs';
import { Injectable } from '@nestjs/common';
import { GenerationStore } from './store.js';

/** Verified webhook events land here (once per event, however often delivered) and go to SQLite. */
@Injectable()
export class GenerationWebhooks {
  constructor(private readonly store: GenerationStore) {}

  @OnGenerationEvent('*')
  record(event: WebhookEvent): void {
    this.store.applyWebhook(event);
  }
}
