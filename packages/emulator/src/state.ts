import type { WebhookPayload } from '@mediagen/core';
import { Accounts } from './accounts.js';
import { Clock } from './clock.js';
import type { ResolvedConfig } from './config.js';
import { Faults, HeldRequests } from './faults.js';
import { type Generation, Generations, seedFor } from './generations.js';
import { IdempotencyStore } from './idempotency.js';
import { inputReader } from './input-reader.js';
import { LinkSigner, OutputCache, renderOutput } from './output.js';
import { Scheduler } from './scheduler.js';
import { fetchTransport, type WebhookFetch, Webhooks } from './webhooks.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export interface StateOptions {
  /** Deliver webhooks to this in-process receiver instead of over the network. */
  webhookFetch?: WebhookFetch;
}

/** Everything the emulator holds in memory; `reset()` puts it back to the start state. */
export class EmulatorState {
  readonly clock = new Clock();
  readonly scheduler = new Scheduler();
  readonly faults = new Faults();
  /** Requests `hold` faults are holding; a reset or close drops them. */
  readonly held = new HeldRequests();
  readonly idempotency: IdempotencyStore;
  readonly signer = new LinkSigner();
  readonly outputs = new OutputCache();
  readonly webhooks: Webhooks;
  accounts: Accounts;
  readonly generations: Generations;
  /** Base address used in webhook payload links (no request to take a Host from). */
  baseUrl = '';

  /** Delivery chains still running, by generation id (the terminal step started them). */
  private readonly delivering = new Map<string, Promise<void>>();
  /** Callers of `settled()` whose generation has not reached a terminal state yet. */
  private readonly waiters = new Map<string, Array<() => void>>();

  constructor(
    readonly config: ResolvedConfig,
    options: StateOptions = {},
  ) {
    this.webhooks = new Webhooks(this.clock, config.timeScale, options.webhookFetch ? fetchTransport(options.webhookFetch) : undefined);
    this.accounts = new Accounts(config, this.clock);
    this.generations = new Generations(
      this.clock,
      this.scheduler,
      config.timeScale,
      (g) => this.onTerminal(g),
      this.held,
      inputReader(
        config,
        () => this.generations,
        (g, index) => this.outputBytes(g, index),
      ),
    );
    // A key's answer is kept no longer than the generation record it names.
    this.idempotency = new IdempotencyStore(
      () => this.clock.now(),
      (id) => this.generations.byId.has(id),
    );
  }

  /** The bytes of output `index` of a completed generation (rendered on demand, kept in the LRU). */
  outputBytes(g: Generation, index: number): Buffer {
    return this.outputs.get(`${g.outputKey}:${g.inputKey}:${index}`, () => renderOutput(g.entry, g.params, seedFor(g, index), g.source));
  }

  /**
   * Resolves once the generation is terminal and every webhook chain it started has ended
   * (delivered, rejected, failed or abandoned): the event a test waits on instead of a clock.
   * False for an id the emulator does not hold.
   */
  settled(id: string): Promise<boolean> {
    this.scheduler.runDue();
    const g = this.generations.byId.get(id);
    if (!g) return Promise.resolve(false);
    // The status read first: a generation that came due since the pass above is finished by it,
    // which starts its deliveries, and those are what a caller waits for.
    const status = this.generations.status(g);
    const running = this.delivering.get(id);
    if (running) return running.then(() => true);
    if (status === 'completed' || status === 'failed') return Promise.resolve(true);
    return new Promise((resolve) => {
      const list = this.waiters.get(id) ?? [];
      list.push(() => resolve(this.generations.byId.has(id)));
      this.waiters.set(id, list);
    });
  }

  private wake(id: string): void {
    const list = this.waiters.get(id);
    this.waiters.delete(id);
    for (const w of list ?? []) w();
  }

  private wakeAll(): void {
    for (const id of [...this.waiters.keys()]) this.wake(id);
    this.delivering.clear();
  }

  private onTerminal(g: Generation): void {
    const endpoints = g.account.webhooks.filter((w) => w.enabled);
    if (endpoints.length === 0) {
      this.wake(g.id);
      return;
    }
    const completed = g.state === 'completed';
    // Links in a webhook expire 3 days after completion.
    const urls = completed ? this.signer.links(this.baseUrl, g.id, g.entry, g.params, g.completedAt ?? this.clock.now()) : null;
    const base = {
      generation_id: g.id,
      model: g.entry.model.slug,
      credits_charged: g.creditsUsed,
      duration_ms: g.durationMs ?? 0,
      completed_at: iso(g.completedAt ?? this.clock.now()),
    };
    const err = this.generations.error(g);
    const payload: WebhookPayload =
      completed && urls?.[0]
        ? { ...base, status: 'completed', output_url: urls[0], output_urls: urls }
        : {
            ...base,
            status: 'failed',
            output_url: null,
            output_urls: null,
            error_code: err?.code ?? 'unknown',
            error_message: err?.message ?? '',
            retryable: err?.retryable ?? false,
          };
    const chains = this.webhooks
      .dispatch(g.account.id, endpoints, completed ? 'generation.completed' : 'generation.failed', payload)
      .finally(() => {
        if (this.delivering.get(g.id) === chains) this.delivering.delete(g.id);
        this.wake(g.id);
      });
    this.delivering.set(g.id, chains);
  }

  reset(): void {
    this.held.dropAll();
    this.scheduler.clear();
    this.webhooks.clear();
    this.faults.clear();
    this.idempotency.clear();
    this.generations.clear();
    this.clock.reset();
    this.accounts = new Accounts(this.config, this.clock);
    this.wakeAll();
  }

  close(): void {
    this.generations.abortInputs();
    this.held.dropAll();
    this.scheduler.clear();
    this.webhooks.clear();
    this.wakeAll();
  }
}
