import { randomUUID } from 'node:crypto';
import type { DedupeClaim, WebhookDedupeStore } from '@mediagen/core/server';
import { type Connection, closeConnection, connect, type RedisStoreOptions, withinTime } from './connection';
import { CLAIM, RELEASE } from './dedupe-scripts';
import { RedisStoreError } from './errors';

export interface RedisDedupeStoreOptions extends RedisStoreOptions {
  /**
   * After Redis is found to have lost its data (restarted without persistence), how long every
   * claim is refused: the "done" marks are gone, so a retry of a delivery already handled
   * would run again. Default 95 s: the service's 90 s retry budget plus its 5 s window, after
   * which no delivery chain that began before the loss can still arrive.
   */
  recoveryMs?: number;
}

/**
 * `WebhookDedupeStore` on Redis, shared by every instance: a two-phase claim on
 * `generation_id` + event type. `SET key "processing:<owner>" NX PX lease` claims it (a crashed
 * instance's claim lapses with its lease), success turns it into `"done"` for the de-dup TTL,
 * failure deletes it (only if still this instance's claim) so the service's retry runs it again.
 */
export class RedisDedupeStore implements WebhookDedupeStore {
  readonly #connection: Connection;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #recoveryMs: number;
  /** This instance's claims in progress: key -> owner value, so a release never drops another's claim. */
  readonly #owned = new Map<string, string>();
  /** The Redis data-set epoch this instance last saw ('' before the first claim). */
  #epoch = '';

  constructor(options: RedisDedupeStoreOptions) {
    this.#connection = connect(options.redis);
    this.#prefix = options.prefix ?? 'mediagen:webhooks:';
    this.#timeoutMs = options.operationTimeoutMs ?? 2_000;
    this.#recoveryMs = options.recoveryMs ?? 95_000;
  }

  async claim(key: string, leaseMs: number): Promise<DedupeClaim> {
    const owner = `processing:${randomUUID()}`;
    const client = this.#connection.client;
    const claiming = CLAIM.run(
      client,
      [this.#key(key), `${this.#prefix}~epoch`, `${this.#prefix}~recovering`],
      [Math.max(1, Math.ceil(leaseMs)), owner, this.#epoch, randomUUID(), this.#recoveryMs],
    ) as Promise<[string, string]>;
    let reply: [string, string];
    try {
      reply = await withinTime(claiming, this.#timeoutMs, 'a webhook claim');
    } catch (error) {
      // Given up on, the claim may still land: a lease that no handler will complete or release
      // would turn every retry of this delivery away as "in progress" until it lapses (5 min,
      // past the service's retry chain). Released as soon as it lands, if it is still this one.
      void claiming.then((late) => (late?.[0] === 'claimed' ? RELEASE.run(client, [this.#key(key)], [owner]) : undefined)).catch(() => {});
      throw error;
    }
    const [state, epoch] = reply;
    this.#epoch = epoch;
    if (state === 'recovering') {
      throw new RedisStoreError(
        'Redis lost its data (a restart without persistence): webhook claims are refused until earlier delivery chains have ended, so no handler runs twice.',
        'REDIS_DATA_LOST',
      );
    }
    if (state === 'claimed') this.#owned.set(key, owner);
    return state as DedupeClaim;
  }

  async complete(key: string, ttlMs: number): Promise<void> {
    this.#owned.delete(key);
    await withinTime(
      this.#connection.client.set(this.#key(key), 'done', 'PX', Math.max(1, Math.ceil(ttlMs))),
      this.#timeoutMs,
      'a webhook completion',
    );
  }

  async release(key: string): Promise<void> {
    const owner = this.#owned.get(key);
    this.#owned.delete(key);
    if (owner === undefined) return;
    await withinTime(RELEASE.run(this.#connection.client, [this.#key(key)], [owner]), this.#timeoutMs, 'a webhook release');
  }

  /** Closes the connection if the store opened it (from a URL). */
  async close(): Promise<void> {
    await closeConnection(this.#connection);
  }

  #key(key: string): string {
    return `${this.#prefix}${key}`;
  }
}
