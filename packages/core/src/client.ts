import { ConfigurationError } from './errors';
import type { GenerationEvents } from './events/generation-events';
import type { Gate } from './gate/gate';
import { createRequestLog, type Logger, type LogLevel } from './http/log';
import { type RequestHookInfo, type ResponseHookInfo, type RetryInfo, Transport } from './http/transport';
import { userAgent } from './http/user-agent';
import { Credits } from './resources/credits';
import { Generations } from './resources/generations';
import { Models } from './resources/models';
import type { GenerateParams } from './types';
import { checkApiKey, checkBaseUrl } from './util/check-config';
import { readEnv } from './util/env';
import { EMULATOR_API_KEY, EMULATOR_BASE_URL } from './wire/emulator';

/** The emulator's default address: with no configuration the SDK talks to a local emulator (outside production). */
export const DEFAULT_BASE_URL = EMULATOR_BASE_URL;

export interface ClientOptions {
  /**
   * Default: `process.env.MEDIAGEN_API_KEY`, else, where `baseUrl` is the local emulator's
   * address, its demo key `svc_live_emulator_demo`. Without a key each request fails
   * (`ConfigurationError`), not the constructor.
   */
  apiKey?: string;
  /**
   * Default: `process.env.MEDIAGEN_BASE_URL`, else the local emulator at http://127.0.0.1:4010,
   * except in production (`NODE_ENV=production`), where one of the two is required: without it
   * each request fails (`ConfigurationError`), not the constructor.
   */
  baseUrl?: string;
  /**
   * Resends after the first attempt. Default 4: five attempts in all, as the spec's retry guidance
   * says; 1 against the local emulator's default address (no `baseUrl` set outside production).
   */
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
   * Turns files in a submit's input fields (`input_image: blob`) into links the service can fetch,
   * before anything is validated or sent: `mediaInputs({ store })` from `@mediagen/core/server`
   * (a `Blob`, bytes or a stream), `nodeMediaInputs` from `@mediagen/core/node` (file paths too).
   * The links are made once per call, so every resend of it sends the same body.
   */
  inputs?: (params: GenerateParams, signal?: AbortSignal) => Promise<GenerateParams>;
  /**
   * What to log: each request, response and retry at `debug`, retries at `info`, a request
   * hook that threw at `warn`. Default: `process.env.MEDIAGEN_LOG`, else `off`. The API key and
   * anything secret-shaped are redacted from every line.
   */
  logLevel?: LogLevel;
  /** Where log lines go: anything console-like. Default `console`. */
  logger?: Logger;
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
    const given = options.baseUrl ?? readEnv('MEDIAGEN_BASE_URL');
    const baseUrl = given ? checkBaseUrl(given) : readEnv('NODE_ENV') === 'production' ? '' : DEFAULT_BASE_URL;
    // The emulator's demo key only where the emulator's own address is the target.
    const apiKey = checkApiKey(options.apiKey ?? readEnv('MEDIAGEN_API_KEY') ?? (baseUrl === DEFAULT_BASE_URL ? EMULATOR_API_KEY : ''));
    // A setting that is missing fails each request, not the constructor: a module that makes its
    // client when it loads is loaded by builds too (`next build` collects page data with
    // NODE_ENV=production), where no secret is set nor needed. A malformed one is refused here.
    const missing = baseUrl
      ? !apiKey && 'No API key: pass { apiKey } or set MEDIAGEN_API_KEY.'
      : 'NODE_ENV=production needs MEDIAGEN_BASE_URL.';
    // Against the emulator by default (no address set, a development machine), a refused
    // connection means it is not started: one resend, not 17 s of them, before the error says so.
    const maxRetries = options.maxRetries ?? (given ? 4 : 1);
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new ConfigurationError('maxRetries must be a whole number >= 0.');
    }
    if (typeof (options.fetch ?? globalThis.fetch) !== 'function') {
      throw new ConfigurationError('No fetch in this runtime: pass { fetch }.');
    }
    const custom = options.fetch;
    // Always called as a plain function: workerd's (and browsers') fetch throws "Illegal invocation"
    // when called as a method of our config. The global one is looked up per call, so a fetch
    // instrumented after the client was made is still used.
    const fetchImpl: typeof fetch = (input, init) => {
      if (missing) throw new ConfigurationError(missing);
      return (custom ?? globalThis.fetch)(input, init);
    };
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
      throw new ConfigurationError('gate takes a Gate: new Gate({ store? }).');
    }
    gate?.connect(async () => (await this.models.cachedList()).rate_limit);
    this.gate = gate;
    this.models = new Models(transport, options.modelsTtlMs, (list) => gate?.observe(list.rate_limit));
    this.credits = new Credits(transport, (summary) => gate?.observe(summary.rate_limit));
    this.generations = new Generations(transport, this.models, {
      // `inputs` as given (the rest of the options are not read there).
      ...options,
      validate: options.validate ?? true,
      gate,
      fetch: fetchImpl,
      events: () => this.events,
    });
  }
}
