import type { WebhookEventType } from '@mediagen/core';
import { DiscoveryService } from '@nestjs/core';

/** An event type the service sends (`generation.completed`, `generation.failed`, later ones), or `'*'` for all. */
export type GenerationEventPattern = WebhookEventType | '*' | (string & {});

/** The metadata `@OnGenerationEvent` leaves, read back through Nest's own `DiscoveryService`. */
export const GenerationEventHandler = DiscoveryService.createDecorator<readonly GenerationEventPattern[]>();

/**
 * Runs the decorated provider method for each verified webhook event of these types (`'*'`:
 * every type), once per event however often it is delivered. The method gets
 * `(event, context)`; throwing answers the delivery 5xx, so the service retries it.
 * The provider must be a singleton: deliveries run outside any HTTP request.
 */
export function OnGenerationEvent(...types: [GenerationEventPattern, ...GenerationEventPattern[]]): MethodDecorator {
  return GenerationEventHandler(types) as MethodDecorator;
}
