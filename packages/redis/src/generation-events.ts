import { randomUUID } from 'node:crypto';
import { type GenerationEvents, MemoryGenerationEvents, type TerminalEventListener, type WebhookEvent } from '@mediagen/core';
import type { Redis } from 'ioredis';
import { type Connection, closeConnection, connect, type RedisStoreOptions, withinTime } from './connection';
import { RedisStoreError } from './errors';

export interface RedisGenerationEventsOptions extends RedisStoreOptions {
  /** Called when the subscriber connection fails or a message is unreadable; waits fall back to polling meanwhile. */
  onError?: (error: unknown) => void;
}

/** A published event is a few hundred bytes; anything far larger is not one of ours. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/**
 * `GenerationEvents` across instances over Redis pub/sub: the instance whose receiver verified
 * a webhook publishes it, and a `wait()` on any instance resolves. Waiters here hear local
 * events at once; other instances' arrive on one channel through a subscriber connection
 * duplicated from the given client (a connection in subscribe mode can run nothing else).
 * Pass it as `new MediaGenClient({ events })`, and to the webhook receiver as `events`.
 */
export class RedisGenerationEvents implements GenerationEvents {
  readonly #connection: Connection;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #local = new MemoryGenerationEvents();
  /** Tags this instance's messages, so the copy that comes back from Redis is not delivered twice. */
  readonly #origin = randomUUID();
  #subscriber: Redis | undefined;
  #subscribed: Promise<void> | undefined;
  #closed = false;

  constructor(options: RedisGenerationEventsOptions) {
    this.#connection = connect(options.redis);
    this.#channel = `${options.prefix ?? 'mediagen:'}generation-events`;
    this.#timeoutMs = options.operationTimeoutMs ?? 2_000;
    this.#onError = options.onError;
  }

  /** Hands the event to this instance's waiters, then to every other instance's. */
  async publish(event: WebhookEvent): Promise<void> {
    if (typeof event?.data?.generation_id !== 'string') return;
    this.#local.publish(event);
    const message = JSON.stringify({ origin: this.#origin, event: { type: event.type, deliveryId: event.deliveryId, data: event.data } });
    await withinTime(this.#connection.client.publish(this.#channel, message), this.#timeoutMs, 'an event publish');
  }

  /** What `wait()` calls: hears this generation's terminal event from any instance. */
  listen(generationId: string, signal?: AbortSignal): TerminalEventListener {
    void this.ready().catch(() => {});
    return this.#local.listen(generationId, signal);
  }

  subscribe(generationId: string, listener: (event: WebhookEvent) => void): () => void {
    void this.ready().catch(() => {});
    return this.#local.subscribe(generationId, listener);
  }

  /** Resolves once the subscriber connection listens (it starts on the first `subscribe`). */
  ready(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#subscribed ??= this.#listen().catch((error: unknown) => {
      // Try again on the next subscribe; waits poll meanwhile.
      this.#subscribed = undefined;
      this.#report(error);
      throw error;
    });
    return this.#subscribed;
  }

  /** Stops listening and closes what the instance opened: the subscriber, and the client if made from a URL. */
  async close(): Promise<void> {
    this.#closed = true;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
    await closeConnection(this.#connection);
  }

  async #listen(): Promise<void> {
    let subscriber = this.#subscriber;
    if (!subscriber) {
      subscriber = this.#connection.client.duplicate();
      this.#subscriber = subscriber;
      subscriber.on('error', (error: unknown) => this.#report(error));
      subscriber.on('message', (channel: string, message: string) => {
        if (channel === this.#channel) this.#receive(message);
      });
    }
    // ioredis re-subscribes by itself after a reconnect.
    await withinTime(subscriber.subscribe(this.#channel), this.#timeoutMs, 'an event subscribe');
  }

  #receive(message: string): void {
    // Nothing of the message's text goes into a report: it is whatever someone published.
    const invalid = (why: string) =>
      this.#report(new RedisStoreError(`A message on the events channel was ignored: ${why}.`, 'REDIS_MESSAGE_INVALID'));
    if (message.length > MAX_MESSAGE_BYTES) return invalid(`over ${MAX_MESSAGE_BYTES} bytes`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return invalid('not JSON');
    }
    if (!isObject(parsed)) return invalid('not a JSON object');
    if (parsed.origin === this.#origin) return;
    const event = readEvent(parsed.event);
    if (typeof event === 'string') return invalid(event);
    this.#local.publish(event);
  }

  #report(error: unknown): void {
    try {
      this.#onError?.(error);
    } catch {
      // An observer's failure changes nothing here.
    }
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The event a message carries, or why it is none. Anyone who can publish on the channel reaches
 * every instance's waiters and streams, so a terminal event is passed on only in the shape the
 * webhook receiver gives a verified one: its type is `generation.<status>`, a completed one has
 * its link, a failed one its code. Other types (a feed's `generation.submitted`, later ones)
 * pass with their id; a terminal status under another type does not.
 */
function readEvent(event: unknown): WebhookEvent | string {
  if (!isObject(event)) return 'no event object';
  const { type, deliveryId, data } = event;
  if (typeof type !== 'string' || type === '') return 'no event type';
  if (!isObject(data) || typeof data.generation_id !== 'string' || data.generation_id === '') return 'no generation_id';
  const status = data.status;
  const terminal = status === 'completed' || status === 'failed';
  if (terminal && type !== `generation.${status}`) return 'its type contradicts its status';
  if (status === 'completed' && typeof data.output_url !== 'string') return 'a completed event without output_url';
  if (status === 'failed' && typeof data.error_code !== 'string') return 'a failed event without error_code';
  return { type, deliveryId: typeof deliveryId === 'string' ? deliveryId : undefined, data } as WebhookEvent;
}
