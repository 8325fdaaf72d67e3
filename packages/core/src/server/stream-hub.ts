import type { MediaGenClient } from '../client';
import { toHex } from '../crypto/hmac';
import { eventsOf } from '../events/events-of';
import { generationFromEvent } from '../events/generation-from-event';
import type { Generation } from '../types';
import { sleep } from '../util/sleep';
import type { WebhookEvent } from '../webhooks/verify';
import { FreshReads } from './fresh-reads';
import { SseConnection } from './sse-connection';

/** How the handler's event streams are bounded and kept alive (`createMediaGenHandler({ stream })`). */
export interface StreamOptions {
  /** Open streams this handler serves at once; past it a stream request answers 503 TOO_MANY_STREAMS. Default 10 000. */
  maxStreams?: number;
  /**
   * Open streams one user (the owner `identify` names) holds at once, on this handler; past it a
   * stream request answers 429 RATE_LIMIT with Retry-After (the browser's hook polls instead).
   * Default 8: a browser opens at most 6 connections per origin over HTTP/1.1, so a user's tabs
   * reach it only over HTTP/2, and a page following more generations at once polls the rest.
   * Requests with no owner (no `identify`, or it named none) share one scope of generations, so
   * counting them as one user would cap every anonymous visitor together: only `maxStreams`
   * bounds them. `Infinity` turns the cap off.
   */
  maxStreamsPerUser?: number;
  /** A `: ping` comment this often on every open stream, so proxies keep it open. Default 15 000 ms. */
  heartbeatMs?: number;
  /** Generations one feed stream follows at once (the newest); older ones are let go. Default 100. */
  feedFollowMax?: number;
  /** For tests: the timer the heartbeat runs on. */
  setInterval?: (callback: () => void, ms: number) => unknown;
  clearInterval?: (timer: unknown) => void;
  /** For tests: the clock a status read is aged on (a stream reuses one younger than 2 s). */
  now?: () => number;
}

/**
 * Why a stream is refused: the handler holds `maxStreams`, or this user `maxStreamsPerUser`, or
 * the handler is draining (`drain()`: the instance is shutting down, another should take it).
 */
export type StreamRefusal = 'server' | 'user' | 'draining';

type Watcher = { update(generation: Generation): void; fail(error: unknown): void };

interface Follower {
  watchers: Set<Watcher>;
  stop: AbortController;
  last: Generation | undefined;
}

/** How one event is written: its text from the generation and its JSON (one per stream kind). */
export type EventFormat = (generation: Generation, json: string) => string;

const encoder = new TextEncoder();

/** Reconnect delay the browser's EventSource uses after a cut (the `retry:` field every stream starts with). */
const RETRY_MS = 2_000;

/** The event type of a feed announcement: a user submitted a generation (published on the client's events). */
const SUBMITTED_TYPE = 'generation.submitted';

/**
 * What every stream of one handler shares: one follower per generation id (one `wait`, hence one
 * poll loop and one webhook listener, however many streams show it), the count of open streams,
 * and one heartbeat timer. Updates come through `client.events`: the webhook receiver publishes
 * there, and a shared implementation (`RedisGenerationEvents`) carries them to every instance.
 */
export class StreamHub {
  readonly #client: MediaGenClient;
  readonly #followers = new Map<string, Follower>();
  readonly #connections = new Set<SseConnection>();
  /** Open streams per owner; an owner with none has no entry. */
  readonly #perUser = new Map<string, number>();
  readonly #reads: FreshReads;
  readonly #json = new WeakMap<Generation, string>();
  readonly #events = new WeakMap<Generation, Map<EventFormat, Uint8Array>>();
  readonly #ping = encoder.encode(': ping\n\n');
  readonly #retry = encoder.encode(`retry: ${RETRY_MS}\n\n`);
  readonly maxStreams: number;
  readonly maxStreamsPerUser: number;
  readonly feedFollowMax: number;
  readonly #heartbeatMs: number;
  readonly #setInterval: (callback: () => void, ms: number) => unknown;
  readonly #clearInterval: (timer: unknown) => void;
  #timer: unknown;
  /** Set by `drain()`: no stream opens from then on. */
  #draining = false;
  /** Called when the last open stream closes while draining. */
  #onIdle: (() => void) | undefined;

  /** Adds the estimate of time remaining to a running generation's events (none by default). */
  readonly #withEta: (generation: Generation) => Generation;

  constructor(client: MediaGenClient, options: StreamOptions = {}, withEta: (generation: Generation) => Generation = (g) => g) {
    this.#client = client;
    this.#withEta = withEta;
    // Installed now, before any follower's wait() starts, so those waits race the webhook too.
    eventsOf(client);
    this.maxStreams = options.maxStreams ?? 10_000;
    this.maxStreamsPerUser = options.maxStreamsPerUser ?? 8;
    this.#reads = new FreshReads(options.now);
    this.feedFollowMax = options.feedFollowMax ?? 100;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    this.#setInterval = options.setInterval ?? ((callback, ms) => setInterval(callback, ms));
    this.#clearInterval = options.clearInterval ?? ((timer) => clearInterval(timer as ReturnType<typeof setInterval>));
  }

  /** Open streams now. */
  get open(): number {
    return this.#connections.size;
  }

  /**
   * `generation` as JSON, serialised once per handler however many formats and streams send it,
   * with its `eta` while it runs: estimated once per state, as the event is made.
   */
  #serialised(generation: Generation): string {
    let text = this.#json.get(generation);
    if (text === undefined) this.#json.set(generation, (text = JSON.stringify(this.#withEta(generation))));
    return text;
  }

  /**
   * `generation`'s event as `format` writes it, as bytes: made once per state and format however
   * many streams send it, and the same bytes go to each of them (a fan-out to thousands).
   */
  event(generation: Generation, format: EventFormat): Uint8Array {
    let formats = this.#events.get(generation);
    if (!formats) this.#events.set(generation, (formats = new Map()));
    let bytes = formats.get(format);
    if (!bytes) formats.set(format, (bytes = encoder.encode(format(generation, this.#serialised(generation)))));
    return bytes;
  }

  /** Whether a stream of `owner` is refused now, and why; undefined when it may open. */
  refusal(owner: string | undefined): StreamRefusal | undefined {
    if (this.#draining) return 'draining';
    if (this.#connections.size >= this.maxStreams) return 'server';
    if (owner !== undefined && (this.#perUser.get(owner) ?? 0) >= this.maxStreamsPerUser) return 'user';
    return undefined;
  }

  /** A new stream of `owner` (its first line the `retry:` advice), or undefined when `refusal(owner)` says no. */
  connect(owner: string | undefined, onClose: () => void, headers?: Record<string, string>): SseConnection | undefined {
    if (this.refusal(owner)) return undefined;
    const connection = new SseConnection(() => {
      this.#connections.delete(connection);
      if (owner !== undefined) {
        const left = (this.#perUser.get(owner) ?? 1) - 1;
        if (left > 0) this.#perUser.set(owner, left);
        else this.#perUser.delete(owner);
      }
      if (this.#connections.size === 0 && this.#timer !== undefined) {
        this.#clearInterval(this.#timer);
        this.#timer = undefined;
      }
      if (this.#connections.size === 0) this.#onIdle?.();
      onClose();
    }, headers);
    this.#connections.add(connection);
    if (owner !== undefined) this.#perUser.set(owner, (this.#perUser.get(owner) ?? 0) + 1);
    connection.send('retry', this.#retry);
    this.#timer ??= this.#setInterval(() => this.#heartbeat(), this.#heartbeatMs);
    return connection;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Stops taking streams and waits for the open ones to end by themselves (each generation
   * stream ends after its terminal event); those still open after `timeoutMs` (feeds never end
   * by themselves) are ended, and the browser reconnects with `Last-Event-ID` to an instance
   * that serves. Resolves with how many were ended that way.
   */
  async drain(timeoutMs: number): Promise<number> {
    this.#draining = true;
    if (this.#connections.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#onIdle = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
      this.#onIdle = undefined;
    }
    const left = [...this.#connections];
    for (const connection of left) connection.abort();
    return left.length;
  }

  /**
   * A stream's first status read of `id` (`read` asks the service): the state the generation's
   * follow holds when one runs (it polls and hears the webhook), else a read in flight or one
   * younger than the contract's polling interval, else a new read. Reconnects, however many,
   * cost the service at most one read per generation per interval.
   */
  read(id: string, read: () => Promise<Generation>): Promise<Generation> {
    const last = this.#followers.get(id)?.last;
    return last ? Promise.resolve(last) : this.#reads.read(id, read);
  }

  /**
   * Calls `watcher.update` with each status of `id` from now to a terminal one (the latest
   * known first, when another stream already follows it or a fresh read just told it); `fail`
   * if following fails. Returns the unsubscribe; the follow stops when its last watcher leaves.
   */
  watch(id: string, watcher: Watcher): () => void {
    let follower = this.#followers.get(id);
    if (!follower) {
      follower = { watchers: new Set(), stop: new AbortController(), last: undefined };
      this.#followers.set(id, follower);
      this.#follow(id, follower);
    }
    if (follower.last) watcher.update(follower.last);
    follower.watchers.add(watcher);
    const own = follower;
    return () => {
      own.watchers.delete(watcher);
      if (own.watchers.size === 0 && this.#followers.get(id) === own) {
        this.#followers.delete(id);
        own.stop.abort();
      }
    };
  }

  /** Tells every feed stream of `owner`, on every instance sharing the client's events, that `id` was submitted. */
  async announce(owner: string | undefined, id: string): Promise<void> {
    const event = { type: SUBMITTED_TYPE, deliveryId: undefined, data: { generation_id: await feedChannel(owner), submitted_id: id } };
    await eventsOf(this.#client).publish(event as unknown as WebhookEvent);
  }

  /** Calls `listener` with each generation id `owner` submits from now on; returns the unsubscribe. */
  onSubmitted(channel: string, listener: (id: string) => void): () => void {
    return eventsOf(this.#client).subscribe(channel, (event) => {
      const id = (event?.data as { submitted_id?: unknown } | undefined)?.submitted_id;
      if ((event?.type as string) === SUBMITTED_TYPE && typeof id === 'string') listener(id);
    });
  }

  #follow(id: string, follower: Follower): void {
    const each = (generation: Generation) => {
      if (follower.last?.status === generation.status) return;
      follower.last = generation;
      for (const watcher of [...follower.watchers]) watcher.update(generation);
    };
    // A verified terminal webhook is passed on as it arrives (its links are valid for days);
    // the wait's own status read after it would cost every stream a round trip to the service.
    const unsubscribe = eventsOf(this.#client).subscribe(id, (event) => {
      const status = event?.data?.status;
      if (status === 'completed' || status === 'failed') each(generationFromEvent(event.data));
    });
    follower.stop.signal.addEventListener('abort', unsubscribe, { once: true });
    // A stream's fresh read just told the state: the follow's own first read waits out the rest
    // of its interval (the webhook is heard meanwhile), so a reconnect is not two reads.
    const known = this.#reads.recent(id);
    if (known) follower.last = known.generation;
    const start = known ? sleep(known.leftMs, follower.stop.signal) : Promise.resolve();
    start
      .then(() => this.#client.generations.wait(id, { signal: follower.stop.signal, onUpdate: each }))
      .then(
        (generation) => {
          unsubscribe();
          if (this.#followers.get(id) === follower) this.#followers.delete(id);
          each(generation);
        },
        (error: unknown) => {
          unsubscribe();
          if (this.#followers.get(id) === follower) this.#followers.delete(id);
          if (follower.stop.signal.aborted) return;
          for (const watcher of [...follower.watchers]) watcher.fail(error);
        },
      );
  }

  #heartbeat(): void {
    for (const connection of this.#connections) connection.ping(this.#ping);
  }
}

/** The events key of `owner`'s feed: a digest, so user ids never travel on a shared bus. */
export async function feedChannel(owner: string | undefined): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`mediagen-feed\n${owner ?? ''}`));
  return `feed:${toHex(new Uint8Array(digest))}`;
}
