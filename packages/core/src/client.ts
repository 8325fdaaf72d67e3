import { ConfigurationError } from './errors';
import { Gate } from './gate/gate';
import { MemoryGateStore, type GateStore } from './gate/store';
import { Transport, type RetryInfo } from './http/transport';
import { Credits } from './resources/credits';
import { Generations } from './resources/generations';
import { Models } from './resources/models';
import { readEnv } from './util/env';

/** The emulator's default address: with no configuration the SDK talks to a local emulator. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export interface ClientOptions {
  /** Default: `process.env.MEDIAGEN_API_KEY`. */
  apiKey?: string;
  /** Default: `process.env.MEDIAGEN_BASE_URL`, else the local emulator at http://127.0.0.1:4010. */
  baseUrl?: string;
  /** Resends after the first attempt. Default 4: five attempts in all, as the spec's retry guidance says. */
  maxRetries?: number;
  /** Per attempt, in ms. Default 60 000. */
  timeoutMs?: number;
  /** A custom fetch (a proxy agent, instrumentation). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Validate params against the account's model list before submit. Default true. */
  validate?: boolean;
  /** Resend `429 CONCURRENCY_LIMIT` after a wait instead of failing at once. Default false. */
  retryConcurrencyLimit?: boolean;
  /** How long the model list is cached for validation and polling. Default 5 minutes. */
  modelsTtlMs?: number;
  /** Observes each resend (attempt number, wait, error). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Keep submits under the account's per-minute rate and `max_concurrent` (read from the
   * models or credits response): `true` for an in-memory gate, or a shared `GateStore`.
   * Default off.
   */
  gate?: boolean | GateStore;
}

export class MediaGenClient {
  readonly generations: Generations;
  readonly models: Models;
  readonly credits: Credits;
  /** The account gate (`gate` option); `gate.settle(id)` frees a slot a webhook reported. */
  readonly gate: Gate;
  readonly baseUrl: string;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? readEnv('MEDIAGEN_API_KEY');
    if (!apiKey) {
      throw new ConfigurationError(
        'No API key: pass { apiKey } or set MEDIAGEN_API_KEY (created in Settings, API & Webhooks; the emulator takes svc_live_emulator_demo).',
      );
    }
    const baseUrl = (options.baseUrl ?? readEnv('MEDIAGEN_BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    if (!/^https?:\/\//.test(baseUrl)) {
      throw new ConfigurationError(`baseUrl must be an http(s) URL such as ${DEFAULT_BASE_URL}; got "${baseUrl}".`);
    }
    const maxRetries = options.maxRetries ?? 4;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new ConfigurationError(`maxRetries must be a whole number >= 0; got ${String(options.maxRetries)}.`);
    }
    if (typeof (options.fetch ?? globalThis.fetch) !== 'function') {
      throw new ConfigurationError('No fetch in this runtime: pass { fetch }.');
    }
    // Looked up per call, so a fetch instrumented after the client was made is still used.
    const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.baseUrl = baseUrl;
    const transport = new Transport({
      apiKey,
      baseUrl,
      maxRetries,
      timeoutMs: options.timeoutMs ?? 60_000,
      fetch: fetchImpl,
      retryConcurrencyLimit: options.retryConcurrencyLimit ?? false,
      onRetry: options.onRetry,
    });
    const store = options.gate === true ? new MemoryGateStore() : options.gate || undefined;
    const gate = new Gate(store, async () => (await this.models.cachedList()).rate_limit);
    this.gate = gate;
    this.models = new Models(transport, options.modelsTtlMs, (list) => gate.observe(list.rate_limit));
    this.credits = new Credits(transport, (summary) => gate.observe(summary.rate_limit));
    this.generations = new Generations(transport, this.models, {
      validate: options.validate ?? true,
      gate,
      fetch: fetchImpl,
    });
  }
}
