import type { GenerationFailedEvent } from '@mediagen/core';
import { OnGenerationEvent } from '@mediagen/nestjs';
import { Injectable, Logger } from '@nestjs/common';

/**
 * Where the app reacts to verified webhook events. The ledger already records every event
 * (it is `routes.source`, whose `onEvent` the receiver calls first), so nothing here writes to
 * it: this method only tells operators why a generation failed, which the ledger's
 * `onTerminal` line (id and status) does not say.
 */
@Injectable()
export class GenerationWebhooks {
  readonly #logger = new Logger('GenerationWebhooks');

  @OnGenerationEvent('generation.failed')
  failed({ data }: GenerationFailedEvent): void {
    this.#logger.warn(`${oneLine(data.generation_id, 64)} failed: ${oneLine(data.error_code, 64)} ${oneLine(data.error_message, 200)}`);
  }
}

/** Server text made safe for a terminal: no control or format characters (escape sequences, line breaks), cut to `max`. */
function oneLine(value: unknown, max: number): string {
  return String(value ?? '')
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ')
    .slice(0, max);
}
