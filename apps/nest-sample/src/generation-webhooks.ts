import type { GenerationLedger } from '@mediagen/core/ledger';
import { OnGenerationEvent, type WebhookEvent } from '@mediagen/nestjs';
import { Inject, Injectable } from '@nestjs/common';
import { GENERATION_LEDGER } from './tokens.js';

/** Verified webhook events land here (once per event, however often delivered) and move the ledger's record on. */
@Injectable()
export class GenerationWebhooks {
  constructor(@Inject(GENERATION_LEDGER) private readonly ledger: GenerationLedger) {}

  @OnGenerationEvent('*')
  async record(event: WebhookEvent): Promise<void> {
    await this.ledger.applyEvent(event);
  }
}
