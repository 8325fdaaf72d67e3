import type { WebhookPayload } from '@mediagen/core';
import { Accounts } from './accounts.js';
import { Clock } from './clock.js';
import type { ResolvedConfig } from './config.js';
import { Faults } from './faults.js';
import { type Generation, Generations } from './generations.js';
import { IdempotencyStore } from './idempotency.js';
import { LinkSigner, OutputCache } from './output.js';
import { Scheduler } from './scheduler.js';
import { Webhooks } from './webhooks.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** Everything the emulator holds in memory; `reset()` puts it back to the start state. */
export class EmulatorState {
  readonly clock = new Clock();
  readonly scheduler = new Scheduler();
  readonly faults = new Faults();
  readonly idempotency: IdempotencyStore;
  readonly signer = new LinkSigner();
  readonly outputs = new OutputCache();
  readonly webhooks: Webhooks;
  accounts: Accounts;
  readonly generations: Generations;
  /** Base address used in webhook payload links (no request to take a Host from). */
  baseUrl = '';

  constructor(readonly config: ResolvedConfig) {
    this.webhooks = new Webhooks(this.clock, config.timeScale);
    this.accounts = new Accounts(config, this.clock);
    this.generations = new Generations(this.clock, this.scheduler, config.timeScale, (g) => this.onTerminal(g));
    // A key's answer is kept no longer than the generation record it names.
    this.idempotency = new IdempotencyStore(
      () => this.clock.now(),
      (id) => this.generations.byId.has(id),
    );
  }

  private onTerminal(g: Generation): void {
    const endpoints = g.account.webhooks.filter((w) => w.enabled);
    if (endpoints.length === 0) return;
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
    this.webhooks.dispatch(g.account.id, endpoints, completed ? 'generation.completed' : 'generation.failed', payload);
  }

  reset(): void {
    this.scheduler.clear();
    this.webhooks.clear();
    this.faults.clear();
    this.idempotency.clear();
    this.generations.clear();
    this.clock.reset();
    this.accounts = new Accounts(this.config, this.clock);
  }

  close(): void {
    this.scheduler.clear();
    this.webhooks.clear();
  }
}
