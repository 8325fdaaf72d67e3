import {
  AbortError,
  APIError,
  ConfigurationError,
  ConnectionError,
  GenerationFailedError,
  ParamsValidationError,
  TimeoutError,
} from '../errors';
import type { TerminalEventListener } from '../events/event-listener';
import type { GenerationEvents } from '../events/generation-events';
import type { Gate } from '../gate/gate';
import { ERROR_BODY_MAX, readText } from '../http/read-text';
import { errorFromResponse } from '../http/response-error';
import { type ResponseMeta, type WithResponse, withMeta } from '../http/response-meta';
import type { RequestOptions, Transport } from '../http/transport';
import { text } from '../params/read';
import type { TypedGenerateParams } from '../params/registry';
import { validateParams } from '../params/validate';
import type { EstimateResponse, GenerateParams, Generation, ModelList, SubmitResponse } from '../types';
import { isIdempotencyKey } from '../util/idempotency-key';
import { oneLine } from '../util/one-line';
import { parseUrl } from '../util/parse-url';
import { redact, sanitizeCause } from '../util/redact';
import { sleep } from '../util/sleep';
import { OUTPUT_LINK_PATTERN, OUTPUT_LINK_PREFIX } from '../wire/links';
import type { EndpointRequest } from '../wire/paths';
import { pollIntervalMs } from '../wire/timing';
import { attachSubmit } from './attach-submit';
import type { Models } from './models';
import { isTerminal, normalizeGeneration } from './normalize';
import { expectEstimate, expectGeneration, expectSubmitted } from './shape';

export interface Submitted extends ResponseMeta {
  /** The `Idempotency-Key` this submit was sent with: store it to resubmit safely after a restart. */
  readonly idempotencyKey: string;
}

export interface WaitOptions {
  /** Between polls. Default: the spec's 2 s for images, 4 s for video (by the model's kind when known). */
  intervalMs?: number;
  /** Overall deadline for reaching a terminal state. Default 15 minutes. */
  timeoutMs?: number;
  /** Called with each status change, the first status seen included. */
  onUpdate?: (generation: Generation) => void;
  signal?: AbortSignal;
}

export type RunOptions = WaitOptions & Pick<RequestOptions, 'idempotencyKey' | 'maxRetries' | 'onQueue'>;

export interface DownloadOptions {
  /** Which output (`output_urls[index]`). Default 0. */
  index?: number;
  signal?: AbortSignal;
  /** A link expiring within this margin is refreshed first. Default 60 000 ms. */
  refreshMarginMs?: number;
  /** Resolve with the response body stream instead of the bytes. */
  stream?: boolean;
}

export interface GenerationsConfig {
  /** Validate params against the cached model list before sending. */
  validate: boolean;
  gate: Gate | undefined;
  /** For output links, which need no Authorization header. */
  fetch: typeof fetch;
  /** Verified webhook events (`client.events`, read per wait: a receiver may install them later). */
  events?: () => GenerationEvents | undefined;
  inputs?: ((params: GenerateParams, signal?: AbortSignal) => Promise<GenerateParams>) | undefined;
}

const DEFAULT_WAIT_MS = 900_000; // 15 minutes

export class Generations {
  readonly #transport: Transport;
  readonly #models: Models;
  readonly #config: GenerationsConfig;
  /** The list fetched after a 422: a further 422 against it is the request's fault, not staleness. */
  #refreshed: ModelList | undefined;

  constructor(transport: Transport, models: Models, config: GenerationsConfig) {
    this.#transport = transport;
    this.#models = models;
    this.#config = config;
  }

  /**
   * `POST /api/v1/generate`. Always sent with an `Idempotency-Key` (yours, or one made once
   * for this call), identical on every retry, so a retry can never bill a second generation.
   * Params are checked against the model list first (`validate`), and with the gate on the
   * call waits for a submit slot.
   */
  async create(params: TypedGenerateParams, options: RequestOptions = {}): Promise<SubmitResponse & WithResponse<Submitted>> {
    // Made first, so that every error out of this call (validation and the gate included)
    // carries the key a resend must use.
    const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
    let generationId: string | undefined;
    try {
      checkIdempotencyKey(idempotencyKey);
      // Files in input fields as links (the client's `inputs`), once: every resend sends this body.
      params = ((await this.#config.inputs?.(params as GenerateParams, options.signal)) ?? params) as TypedGenerateParams;
      const gate = this.#config.gate;
      const list = await this.#check(params, options.signal);
      const token = await gate?.acquire(options);
      try {
        // The send point. Aborted by now, nothing went out and nothing is charged: every
        // `AbortError` out of `create` means so. From here the submit runs to the service's answer
        // whatever the signal (its timeouts and resends bound it), so an abort never leaves it
        // unknown whether a generation was billed: `run` then stops following it, billed.
        if (options.signal?.aborted) throw new AbortError(undefined, options.signal.reason);
        const { data, meta } = await this.#transport.request<SubmitResponse>({
          ...options,
          signal: undefined,
          ...({ method: 'POST', path: '/api/v1/generate' } satisfies EndpointRequest<'generate'>),
          body: params,
          idempotencyKey,
          expect: expectSubmitted,
          // Each resend is a request the service counts against the rate, as the gate must.
          beforeRetry: gate && ((error, delayMs) => gate.retried(error, delayMs).catch(() => {})),
        });
        generationId = data.generation_id;
        await gate?.bind(token, data.generation_id);
        return withMeta(data, { ...meta, idempotencyKey });
      } catch (error) {
        await gate?.release(token, error, idempotencyKey);
        await this.#refreshIfStale(error, list);
        throw error;
      }
    } catch (error) {
      throw attachSubmit(error, { idempotencyKey, generationId });
    }
  }

  /** The exact cost of `params`, from the same validation and pricing as a submit. Charges nothing. */
  async estimate(params: TypedGenerateParams, options: RequestOptions = {}): Promise<EstimateResponse & WithResponse> {
    const list = await this.#check(params, options.signal);
    try {
      const { data, meta } = await this.#transport.request<EstimateResponse>({
        ...options,
        ...({ method: 'POST', path: '/api/v1/generate' } satisfies EndpointRequest<'generate'>),
        body: { ...params, estimate: true },
        expect: expectEstimate,
      });
      return withMeta(data, meta);
    } catch (error) {
      await this.#refreshIfStale(error, list);
      throw error;
    }
  }

  /**
   * Validates against the cached model list and throws `ParamsValidationError` with every
   * issue. Returns the list it used, or undefined when it did not validate: validation off,
   * the list unavailable, or a slug the list lacks (the list can be stale: the server decides).
   */
  async #check(params: GenerateParams, signal: AbortSignal | undefined): Promise<ModelList | undefined> {
    assertParams(params);
    if (!this.#config.validate) return undefined;
    let list: ModelList;
    try {
      list = await this.#models.cachedList({ signal });
    } catch (error) {
      if (error instanceof AbortError) throw error;
      return undefined;
    }
    const model = this.#models.peek(params.model);
    if (!model) return undefined;
    // Never throws: a model entry it cannot read checks nothing, and the server decides (a property test).
    const issues = validateParams(model, params);
    if (issues.length > 0) throw new ParamsValidationError(params.model, issues);
    return list;
  }

  /**
   * The server refused what the cached list allowed: the list is stale (a schema or the
   * allowlist changed), so it is fetched again for the next calls; once: the list that refresh
   * brings is not refreshed again on a 422 (its TTL still applies).
   */
  async #refreshIfStale(error: unknown, list: ModelList | undefined): Promise<void> {
    if (!list || list === this.#refreshed || this.#models.cached !== list || !(error instanceof APIError)) return;
    if (error.status === 422 ? error.code === 'IDEMPOTENCY_KEY_REUSED' : error.code !== 'MODEL_NOT_ALLOWED') return;
    this.#models.invalidate();
    this.#refreshed = await this.#models.cachedList().catch(() => undefined);
  }

  /** `GET /api/v1/generations/{id}`: the generation in any state (a failed job is not an HTTP error). */
  async get(id: string, options: RequestOptions = {}): Promise<Generation & WithResponse> {
    if (!id || typeof id !== 'string') {
      throw new ConfigurationError('generations.get(id) needs a generation_id.');
    }
    const { data, meta } = await this.#transport.request<Generation>({
      ...options,
      ...({ method: 'GET', path: `/api/v1/generations/${encodeURIComponent(id)}` } satisfies EndpointRequest<'status'>),
      expect: expectGeneration,
    });
    const generation = normalizeGeneration(data);
    // Seen terminal: its slot in the gate is free (wait and run read through here too).
    const gate = this.#config.gate;
    if (gate && isTerminal(generation)) await gate.settle(generation.generation_id ?? id).catch(() => {});
    return withMeta(generation, meta);
  }

  /**
   * The bytes (or, with `stream: true`, the body stream) of one output. Links are signed and
   * expire: a generation given as an id is read first, and one given as an object is read again
   * when its link has expired or is about to, since every status read signs fresh links.
   */
  download(target: string | Generation, options: DownloadOptions & { stream: true }): Promise<ReadableStream<Uint8Array>>;
  download(target: string | Generation, options?: DownloadOptions): Promise<Uint8Array>;
  async download(target: string | Generation, options: DownloadOptions = {}): Promise<Uint8Array | ReadableStream<Uint8Array>> {
    const { index = 0, signal } = options;
    const byId = typeof target === 'string';
    const id = byId ? target : target?.generation_id;
    let generation = byId ? undefined : target;
    let url = generation && outputAt(generation, index);
    // Read first when the link is missing (an id given) or expiring; then once more, should the link be refused.
    for (let refreshed = byId, read = !url || expiresSoon(url, options.refreshMarginMs ?? 60_000); ; refreshed = read = true) {
      if (read) {
        generation = await this.get(id, { signal });
        url = outputAt(generation, index);
      }
      if (!url) {
        if (generation?.status === 'failed') throw new GenerationFailedError(generation);
        throw new ConfigurationError(oneLine(`Generation ${id} (${generation?.status}) has no output ${index}.`));
      }
      const base = this.#transport.baseUrl;
      const link = parseUrl(url, base);
      // Only a link under `<baseUrl>/api/v1/output/` once both are parsed, as fetch reads them:
      // host, port, userinfo, backslashes and dot segments included (test/download-foreign-links).
      // Not echoed: the link's signature is a credential, and its host may be an internal name.
      if (!link?.href.startsWith((parseUrl(base + OUTPUT_LINK_PREFIX) as URL).href))
        throw new ConfigurationError("Output link not on the service's address.");
      let response: Response;
      try {
        // No Authorization header: the signature in the link is the credential.
        response = await this.#config.fetch(link, { signal });
        // Read here, so a body cut off half-way is a ConnectionError too, not a bare TypeError.
        if (response.ok) return options.stream && response.body ? response.body : new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        if (signal?.aborted) throw new AbortError(undefined, signal.reason);
        throw new ConnectionError(redact(`Download failed: ${String(error)}`), sanitizeCause(error));
      }
      const text = (await readText(response, ERROR_BODY_MAX, true).catch(() => '')) ?? '';
      // A refused link (expired, or a signature rotated early): once, sign it afresh and retry.
      if (refreshed || response.status >= 500 || response.status === 429) throw errorFromResponse(response.status, response.headers, text);
    }
  }

  /**
   * Resolves with the generation once `completed` or `failed`, whichever it is: on its verified
   * webhook published to `client.events` (by the app's receiver) or on a poll, whichever is first.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<Generation & WithResponse> {
    try {
      return await this.#poll(id, options, false);
    } catch (error) {
      throw attachSubmit(error, { generationId: text(id) });
    }
  }

  /**
   * `create` then `wait`; a failed generation throws `GenerationFailedError`. Every error
   * carries the submit's `idempotencyKey`, and the `generationId` once the submit was accepted:
   * resending with that key (or waiting on that id) never bills a second generation.
   */
  async run(params: TypedGenerateParams, options: RunOptions = {}): Promise<Generation & WithResponse> {
    const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
    // The submit takes its own options from these (`signal`, `maxRetries`, `onQueue`): not
    // `timeoutMs`, which here is the whole wait's deadline, not one attempt's.
    const submitted = await this.create(params, { ...options, idempotencyKey, timeoutMs: undefined });
    try {
      const generation = await this.#poll(submitted.generation_id, options, true);
      if (generation.status === 'failed') throw new GenerationFailedError(generation);
      return generation;
    } catch (error) {
      throw attachSubmit(error, { idempotencyKey, generationId: submitted.generation_id });
    }
  }

  /**
   * Polls, and listens on `client.events` (if any) for the generation's terminal webhook:
   * whichever comes first ends the wait. The listening code is the events object's (`listen`),
   * so a client with none ships no racing code. The subscription is made before the first read
   * (an event published meanwhile is not missed) and removed on every exit: result, deadline,
   * abort or error.
   */
  async #poll(id: string, options: WaitOptions, justCreated: boolean): Promise<Generation & WithResponse> {
    const { signal, onUpdate } = options;
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_WAIT_MS);
    const listener = this.#config.events?.()?.listen?.(id, signal);
    let lastStatus: string | undefined;
    const seen = (generation: Generation & WithResponse) => {
      if (generation.status !== lastStatus) {
        lastStatus = generation.status;
        onUpdate?.(generation);
      }
      return generation;
    };
    try {
      // Right after a submit the job is certainly pending: the first read waits one interval.
      if (justCreated) await this.#pause(options, undefined, deadline, id, listener);
      for (;;) {
        const heard = listener?.generation;
        if (heard) return seen(await this.#afterEvent(id, heard, signal));
        const generation = seen(await this.get(id, { signal }));
        if (isTerminal(generation)) return generation;
        await this.#pause(options, generation.model, deadline, id, listener);
      }
    } finally {
      listener?.stop();
    }
  }

  /**
   * A verified webhook said the generation is terminal: one status read returns the full
   * resource with freshly signed links. Should that read fail (or still show it running, a
   * replica lagging behind the webhook), the resource built from the signed event is returned.
   */
  async #afterEvent(id: string, heard: Generation, signal: AbortSignal | undefined): Promise<Generation & WithResponse> {
    try {
      const generation = await this.get(id, { signal, maxRetries: 0 });
      if (isTerminal(generation)) return generation;
    } catch (error) {
      if (error instanceof AbortError) throw error;
    }
    const gate = this.#config.gate;
    await gate?.settle(id).catch(() => {});
    // Built from the event, not a response: no request id, rate or balance to report.
    return withMeta(heard, {} as ResponseMeta);
  }

  /** One poll interval (capped by the deadline), cut short when the webhook is heard. */
  async #pause(
    options: WaitOptions,
    model: string | undefined,
    deadline: number,
    id: string,
    listener: TerminalEventListener | undefined,
  ): Promise<void> {
    if (listener?.generation) return;
    // By the model's kind when the list has it (no slug, undefined: the list's slugs are all strings).
    const interval = options.intervalMs ?? pollIntervalMs(this.#models.peek(model as string)?.kind);
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new TimeoutError(
        `Generation ${id} not finished within ${options.timeoutMs ?? DEFAULT_WAIT_MS} ms; it may still finish: wait() again.`,
      );
    }
    try {
      // One signal ends the sleep for the caller's abort or the event; either way its timer is cleared.
      await sleep(Math.min(interval, left), listener?.signal ?? options.signal);
    } catch (error) {
      if (options.signal?.aborted || !listener?.generation) throw error;
    }
  }
}

function checkIdempotencyKey(key: unknown): void {
  if (!isIdempotencyKey(key)) {
    throw new ConfigurationError('idempotencyKey must be 1-255 visible ASCII characters.');
  }
}

function assertParams(params: GenerateParams): void {
  if (typeof params !== 'object' || !params || typeof params.model !== 'string' || params.model === '') {
    throw new ConfigurationError('Generate params must be an object with a `model` slug.');
  }
}

function outputAt(generation: Generation, index: number): string | undefined {
  return generation.output_urls?.[index] ?? (index === 0 ? generation.output_url : null) ?? undefined;
}

/**
 * Expired or about to; a link of another shape (a proxy's) is never due (and not on the service's
 * address: refused). Reads only the expiry segment of `/wire`'s link pattern: the full
 * `parseOutputLink` (ids, filenames, errors) is for apps that import it, not a cost of every client.
 */
function expiresSoon(url: string, marginMs: number): boolean {
  // No expiry segment (not a URL, another shape): NaN, which is never due.
  return Number(OUTPUT_LINK_PATTERN.exec(parseUrl(url, 'http://base.invalid')?.pathname ?? '')?.[2]) * 1_000 - marginMs <= Date.now();
}
