import { type GenerationEvents, MemoryGenerationEvents } from './generation-events';

/**
 * The client's events, installing in-process ones when it has none: a webhook receiver (or
 * stream hub) given the client calls this, so `wait()` on that client resolves on its webhooks
 * with no `events` option, while a client with no receiver never ships the racing code.
 */
export function eventsOf(client: { events?: GenerationEvents | undefined }): GenerationEvents {
  client.events ??= new MemoryGenerationEvents();
  return client.events;
}
