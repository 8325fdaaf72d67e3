import { ConfigurationError, GenerationFailedError, TimeoutError } from '../errors';
import { withMeta, type ResponseMeta } from '../http/response-meta';
import type { RequestOptions, Transport } from '../http/transport';
import type { GenerateParams, Generation, SubmitResponse } from '../types';
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

const IMAGE_INTERVAL_MS = 2_000;
const VIDEO_INTERVAL_MS = 4_000;
const DEFAULT_WAIT_MS = 15 * 60_000;

export class Generations {
  readonly #transport: Transport;
  readonly #models: Models;

  constructor(transport: Transport, models: Models) {
    this.#transport = transport;
    this.#models = models;
  }

  /**
   * `POST /api/v1/generate`. Always sent with an `Idempotency-Key` (yours, or one made once
   * for this call), identical on every retry, so a retry can never bill a second generation.
   */
  async create(params: GenerateParams, options: RequestOptions = {}): Promise<SubmitResponse & Submitted> {
    assertParams(params);
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const { data, meta } = await this.#transport.request<SubmitResponse>({
      ...options,
      method: 'POST',
      path: '/api/v1/generate',
      body: params,
      idempotencyKey,
    });
    return withMeta(data, { ...meta, idempotencyKey });
  }

  /** The exact cost of `params`, from the same validation and pricing as a submit. Charges nothing. */
  async estimate(params: GenerateParams, options: RequestOptions = {}): Promise<Record<string, unknown> & ResponseMeta> {
    assertParams(params);
    const { data, meta } = await this.#transport.request<Record<string, unknown>>({
      ...options,
      method: 'POST',
      path: '/api/v1/generate',
      body: { ...params, estimate: true },
    });
    return withMeta(data, meta);
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
    return withMeta(normalizeGeneration(data), meta);
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
