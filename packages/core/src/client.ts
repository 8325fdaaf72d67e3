import { ConfigurationError } from './errors';
import type { GenerationEvents } from './events/generation-events';
import type { Gate } from './gate/gate';
import { createRequestLog, type Logger, type LogLevel } from './http/log';
import { type RequestHookInfo, type ResponseHookInfo, type RetryInfo, Transport } from './http/transport';
import { userAgent } from './http/user-agent';
import { Credits } from './resources/credits';
import { Generations } from './resources/generations';
import { Models } from './resources/models';
import { checkApiKey, checkBaseUrl } from './util/check-config';
import { readEnv } from './util/env';

/** The emulator's default address: with no configuration the SDK talks to a local emulator. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export interface ClientOptions {
  /** Default: `process.env.MEDIAGEN_API_KEY`. */
  apiKey?: string;
  /**
   * Default: `process.env.MEDIAGEN_BASE_URL`, else the local emulator at http://127.0.0.1:4010,
   * except in production (`NODE_ENV=production`), where one of the two is required.
   */
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
  /**
   * Observes each resend (attempt number, wait, error). As with `onRequest`, a throw is logged at
   * `warn` and ignored: a broken hook never fails a call whose submit may already be billed.
   */
  onRetry?: (info: RetryInfo) => unknown;
  /**
   * Called as each HTTP attempt to the API is sent (every resend is an attempt of its own), just
   * before it goes: method, URL, attempt number, idempotency key, and a copy of the headers
   * without `Authorization`. Not awaited; a hook that throws or rejects is logged at `warn` and
   * otherwise ignored, so it never fails a call nor causes a resend. Output-link downloads are
   * not hooked (their URL is a credential).
   */
  onRequest?: (info: RequestHookInfo) => unknown;
  /**
   * Called once each attempt is over: its status and request id (or, with no response, the
   * error), attempt number and elapsed ms. Same rules as `onRequest`.
   */
  onResponse?: (info: ResponseHookInfo) => unknown;
  /**
   * Keep submits under the account's per-minute rate and `max_concurrent` (read from the
   * models or credits response): `new Gate()`, or `new Gate({ store, maxWaitMs })` for a shared
   * store. Default off (and then not in the app's bundle).
   */
  gate?: Gate;
  /**
   * Where webhook receivers publish verified events so `wait()`/`run()` resolve on the webhook
   * instead of the next poll. Default: none until a webhook receiver is given this client
   * (`createWebhookHandler({ client })`), which installs in-process `MemoryGenerationEvents`;
   * pass a shared one (`RedisGenerationEvents`) when receiver and waiter are different instances.
   */
  events?: GenerationEvents;
  /**
   * What to log: each request, response and retry at `debug`, retries at `info`, a request
   * hook that threw at `warn`. Default: `process.env.MEDIAGEN_LOG`, else `off`. The API key and
   * anything secret-shaped are redacted from every line.
   */
  logLevel?: LogLevel;
  /** Where log lines go: anything console-like. Default `console`. */
  logger?: Logger;
}

/**
 * The emulator's address, outside production. A production process with no address configured
 * fails here, at start, rather than on its first request with a connection refused on 127.0.0.1.
 */
function localDefault(): string {
  if (readEnv('NODE_ENV') === 'production') {
    throw new ConfigurationError('NODE_ENV=production needs MEDIAGEN_BASE_URL (or { baseUrl }).');
  }
  return DEFAULT_BASE_URL;
}

export class MediaGenClient {
  // `declare`d fields (here and in the errors) are assigned in the constructor: a field
  // declaration on top would only cost every app's bundle its name once more.
  declare readonly generations: Generations;
  declare readonly models: Models;
  declare readonly credits: Credits;
  /** The account gate (`gate` option), if any; `gate.settle(id)` frees a slot a webhook reported. */
  declare readonly gate: Gate | undefined;
  declare readonly baseUrl: string;
  /**
   * Verified webhook events for this client's waiters: the `events` option, else installed by
   * the first webhook receiver given this client, else undefined (then `wait()` only polls).
   */
  declare events: GenerationEvents | undefined;

  constructor(options: ClientOptions = {}) {
    const apiKey = checkApiKey(options.apiKey ?? readEnv('MEDIAGEN_API_KEY'));
    const baseUrl = checkBaseUrl(options.baseUrl ?? readEnv('MEDIAGEN_BASE_URL') ?? localDefault());
    const maxRetries = options.maxRetries ?? 4;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new ConfigurationError(`maxRetries must be a whole number >= 0; got ${String(options.maxRetries).slice(0, 20)}.`);
    }
    if (typeof (options.fetch ?? globalThis.fetch) !== 'function') {
      throw new ConfigurationError('No fetch in this runtime: pass { fetch }.');
    }
    const custom = options.fetch;
    // Always called as a plain function: workerd's (and browsers') fetch throws "Illegal invocation"
    // when called as a method of our config. The global one is looked up per call, so a fetch
    // instrumented after the client was made is still used.
    const fetchImpl: typeof fetch = (input, init) => (custom ?? globalThis.fetch)(input, init);
    this.baseUrl = baseUrl;
    this.events = options.events;
    const transport = new Transport({
      // The hooks (onRetry, onRequest, onResponse) and retryConcurrencyLimit as given.
      ...options,
      apiKey,
      baseUrl,
      maxRetries,
      timeoutMs: options.timeoutMs ?? 60_000,
      fetch: fetchImpl,
      userAgent: userAgent(),
      log: createRequestLog(options.logLevel ?? readEnv('MEDIAGEN_LOG') ?? 'off', options.logger ?? globalThis.console ?? {}, [apiKey]),
    });
    const gate = options.gate;
    // The earlier forms (`gate: true`, a bare store) would otherwise fail on the first submit.
    if (gate !== undefined && typeof gate?.connect !== 'function') {
      throw new ConfigurationError('gate takes a Gate: new Gate() or new Gate({ store }).');
    }
    gate?.connect(async () => (await this.models.cachedList()).rate_limit);
    this.gate = gate;
    this.models = new Models(transport, options.modelsTtlMs, (list) => gate?.observe(list.rate_limit));
    this.credits = new Credits(transport, (summary) => gate?.observe(summary.rate_limit));
    this.generations = new Generations(transport, this.models, {
      validate: options.validate ?? true,
      gate,
      fetch: fetchImpl,
      events: () => this.events,
    });
  }
}
