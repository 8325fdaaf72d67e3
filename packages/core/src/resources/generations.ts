import {
  AbortError,
  APIError,
  ConfigurationError,
  ConnectionError,
  GenerationFailedError,
  ParamsValidationError,
  TimeoutError,
} from '../errors';
import type { Gate } from '../gate/gate';
import { errorFromResponse } from '../http/response-error';
import { withMeta, type ResponseMeta } from '../http/response-meta';
import type { RequestOptions, Transport } from '../http/transport';
import { isExpired } from '../links/output-link';
import { validateParams } from '../params/validate';
import type { EstimateResponse, GenerateParams, Generation, ModelList, SubmitResponse } from '../types';
import { sleep } from '../util/sleep';
import type { Models } from './models';
import { isTerminal, normalizeGeneration } from './normalize';

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

export type RunOptions = WaitOptions & Pick<RequestOptions, 'idempotencyKey' | 'maxRetries'>;

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
  gate: Gate;
  /** For output links, which need no Authorization header. */
  fetch: typeof fetch;
}

const IMAGE_INTERVAL_MS = 2_000;
const VIDEO_INTERVAL_MS = 4_000;
const DEFAULT_WAIT_MS = 15 * 60_000;

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
  async create(params: GenerateParams, options: RequestOptions = {}): Promise<SubmitResponse & Submitted> {
    const gate = this.#config.gate;
    const list = await this.#check(params, options.signal);
    const token = await gate.acquire(options.signal);
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    try {
      const { data, meta } = await this.#transport.request<SubmitResponse>({
        ...options,
        method: 'POST',
        path: '/api/v1/generate',
        body: params,
        idempotencyKey,
      });
      await gate.bind(token, data.generation_id);
      return withMeta(data, { ...meta, idempotencyKey });
    } catch (error) {
      await gate.release(token);
      await this.#refreshIfStale(error, list);
      throw error;
    }
  }

  /** The exact cost of `params`, from the same validation and pricing as a submit. Charges nothing. */
  async estimate(params: GenerateParams, options: RequestOptions = {}): Promise<EstimateResponse & ResponseMeta> {
    const list = await this.#check(params, options.signal);
    try {
      const { data, meta } = await this.#transport.request<EstimateResponse>({
        ...options,
        method: 'POST',
        path: '/api/v1/generate',
        body: { ...params, estimate: true },
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
  async get(id: string, options: RequestOptions = {}): Promise<Generation & ResponseMeta> {
    if (typeof id !== 'string' || id === '') {
      throw new ConfigurationError('generations.get(id) needs the generation_id string returned by create().');
    }
    const { data, meta } = await this.#transport.request<Generation>({
      ...options,
      method: 'GET',
      path: `/api/v1/generations/${encodeURIComponent(id)}`,
    });
    const generation = normalizeGeneration(data);
    // Seen terminal: its slot in the gate is free (wait and run read through here too).
    const gate = this.#config.gate;
    if (gate.enabled && isTerminal(generation)) await gate.settle(generation.generation_id ?? id);
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
    const id = typeof target === 'string' ? target : target?.generation_id;
    let generation = typeof target === 'string' ? undefined : target;
    let url = generation && outputAt(generation, index);
    if (!url || expiresSoon(url, options.refreshMarginMs ?? 60_000)) {
      generation = await this.get(id, { signal });
      url = outputAt(generation, index);
    }
    for (let refreshed = typeof target === 'string'; ; refreshed = true) {
      if (!url) {
        if (generation?.status === 'failed') throw new GenerationFailedError(generation);
        throw new ConfigurationError(`Generation ${id} (${generation?.status}) has no output ${index}; wait() for completion first.`);
      }
      let response: Response;
      try {
        // No Authorization header: the signature in the link is the credential.
        response = await this.#config.fetch(new URL(url, this.#transport.baseUrl), { signal });
      } catch (error) {
        if (signal?.aborted) throw new AbortError(undefined, signal.reason);
        throw new ConnectionError(`Download failed: ${String(error)}`, error);
      }
      if (response.ok) return options.stream && response.body ? response.body : new Uint8Array(await response.arrayBuffer());
      const text = await response.text().catch(() => '');
      // A refused link (expired, or a signature rotated early): once, sign it afresh and retry.
      if (refreshed || response.status >= 500 || response.status === 429) throw errorFromResponse(response.status, response.headers, text);
      generation = await this.get(id, { signal });
      url = outputAt(generation, index);
    }
  }

  /** Polls until `completed` or `failed` and resolves with that generation, whichever it is. */
  async wait(id: string, options: WaitOptions = {}): Promise<Generation & ResponseMeta> {
    return this.#poll(id, options, false);
  }

  /** `create` then `wait`; a failed generation throws `GenerationFailedError`. */
  async run(params: GenerateParams, options: RunOptions = {}): Promise<Generation & ResponseMeta> {
    const { idempotencyKey, maxRetries, signal } = options;
    const submitted = await this.create(params, { idempotencyKey, maxRetries, signal });
    const generation = await this.#poll(submitted.generation_id, options, true);
    if (generation.status === 'failed') throw new GenerationFailedError(generation);
    return generation;
  }

  async #poll(id: string, options: WaitOptions, justCreated: boolean): Promise<Generation & ResponseMeta> {
    const { signal, onUpdate } = options;
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_WAIT_MS);
    let lastStatus: string | undefined;
    // Right after a submit the job is certainly pending: the first read waits one interval.
    if (justCreated) await this.#pause(options, undefined, deadline, id);
    for (;;) {
      const generation = await this.get(id, { signal });
      if (generation.status !== lastStatus) {
        lastStatus = generation.status;
        onUpdate?.(generation);
      }
      if (isTerminal(generation)) return generation;
      await this.#pause(options, generation.model, deadline, id);
    }
  }

  async #pause(options: WaitOptions, model: string | undefined, deadline: number, id: string): Promise<void> {
    const interval = options.intervalMs ?? this.#intervalFor(model);
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new TimeoutError(
        `Generation ${id} did not reach a terminal state within ${options.timeoutMs ?? DEFAULT_WAIT_MS} ms; it may still complete: call wait() again or rely on the webhook.`,
      );
    }
    await sleep(Math.min(interval, left), options.signal);
  }

  #intervalFor(slug: string | undefined): number {
    const kind = slug === undefined ? undefined : this.#models.peek(slug)?.kind;
    return kind === 'video' ? VIDEO_INTERVAL_MS : IMAGE_INTERVAL_MS;
  }
}

function assertParams(params: GenerateParams): void {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new ConfigurationError('Generate params must be an object such as { model: "image-fast", prompt: "…" }.');
  }
  if (typeof params.model !== 'string' || params.model === '') {
    throw new ConfigurationError('Generate params need `model`: a slug from client.models.list().');
  }
}

function outputAt(generation: Generation, index: number): string | undefined {
  return generation.output_urls?.[index] ?? (index === 0 ? generation.output_url : null) ?? undefined;
}

/** Expired or about to; a link of another shape (a proxy's) is used as is. */
function expiresSoon(url: string, marginMs: number): boolean {
  try {
    return isExpired(url, Date.now(), marginMs);
  } catch {
    return false;
  }
}
