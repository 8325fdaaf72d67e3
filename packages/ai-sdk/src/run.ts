import { APICallError, NoSuchModelError, type SharedV4Warning, UnsupportedFunctionalityError } from '@ai-sdk/provider';
import {
  AbortError,
  ConnectionError,
  type GenerateParams,
  type Generation,
  isMediaGenError,
  type MediaGenClient,
  MediaGenError,
  type Model,
} from '@mediagen/core';
import { API_PREFIX, NUMBER_RESULTS_MAX, outputLinks } from '@mediagen/core/wire';
import { type CallSite, toAISDKError } from './errors.js';
import type { ParsedOptions } from './options.js';

/** What a model object needs from its provider: the client (made lazily) and its name. */
export interface ModelConfig {
  provider: string;
  client(): MediaGenClient;
  /** The most bytes one output may have: it is held in memory whole (`maxOutputBytes`). */
  maxOutputBytes: number;
  /** Turns file data in the params into stored inputs' links (`createMediaGen({ inputs })`); absent, file data is refused. */
  inputs?: ((params: GenerateParams, signal?: AbortSignal) => Promise<GenerateParams>) | undefined;
}

/** The setting file data needs, named in the refusal. */
const INPUTS_SETTING =
  'set `inputs` on the provider (`createMediaGen({ inputs: mediaInputs({ store }) })`, `mediaInputs` from @mediagen/core/server) so files are stored where the service can fetch them; else give an https URL';

/**
 * A file of the call as an input: a URL as it is; file data (bytes, base64) as bytes, which
 * `withStoredInputs` then stores (named by their digest) and replaces by a link, when the provider
 * has `inputs`. Never a data URI: the contract takes links.
 */
export function inputOf(
  file: { type: 'url'; url: string } | { type: 'file'; data: string | Uint8Array },
  what: string,
  config: Pick<ModelConfig, 'inputs'>,
): string | Uint8Array {
  if (file.type === 'url') return file.url;
  if (!config.inputs) throw new UnsupportedFunctionalityError({ functionality: `${what} as file data: ${INPUTS_SETTING}` });
  return typeof file.data === 'string' ? base64Bytes(file.data) : file.data;
}

function base64Bytes(data: string): Uint8Array {
  // A data URL's payload, or bare base64.
  const payload = data.startsWith('data:') ? data.slice(data.indexOf(',') + 1) : data;
  return Uint8Array.from(atob(payload.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
}

/** The params with every file stored and linked (once per call: every resend of it sends this body). */
export async function withStoredInputs(
  config: ModelConfig,
  params: GenerateParams,
  signal: AbortSignal | undefined,
): Promise<GenerateParams> {
  if (!config.inputs) return params;
  try {
    return await config.inputs(params, signal);
  } catch (error) {
    throw toAISDKError(error, site(config.client(), 'generate'));
  }
}

/** Default `maxOutputBytes`: far above any image or clip the contract describes, far below what would exhaust a server. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024 * 1024;

export type MediaKind = 'image' | 'video';

const site = (client: MediaGenClient, path: string, body?: unknown): CallSite => ({ url: `${client.baseUrl}${API_PREFIX}/${path}`, body });

/** The model's live list entry (the account's allowlist, the model's own schema). */
export async function liveModel(config: ModelConfig, modelId: string, kind: MediaKind, signal?: AbortSignal): Promise<Model> {
  let client: MediaGenClient;
  try {
    client = config.client();
  } catch (e) {
    throw toAISDKError(e, { url: '', body: undefined });
  }
  let model: Model | undefined;
  try {
    model = await client.models.find(modelId, { signal });
  } catch (e) {
    throw toAISDKError(e, site(client, 'models'));
  }
  const modelType = kind === 'image' ? 'imageModel' : 'videoModel';
  if (!model) {
    throw new NoSuchModelError({
      modelId,
      modelType,
      message: `No model "${modelId}" in this account's model list (GET ${API_PREFIX}/models).`,
    });
  }
  if (model.kind !== kind) {
    throw new NoSuchModelError({ modelId, modelType, message: `"${modelId}" is a ${model.kind} model, not a ${kind} model.` });
  }
  return model;
}

/** The most results one submit may ask for (the model's `number_results.max`; 1 when it lists none). */
export function maxResults(model: Model): number {
  const max = model.params.number_results?.max;
  return typeof max === 'number' && max >= 1 ? Math.floor(max) : 1;
}

/** Collects the settings the model has no param for: each becomes an AI SDK warning, never a silent drop. */
export class Warnings {
  readonly list: SharedV4Warning[] = [];
  unsupported(feature: string, details: string): void {
    this.list.push({ type: 'unsupported', feature, details });
  }
}

export interface Completed {
  generation: Generation;
  /** The bytes of each output, in `output_urls` order. */
  outputs: Uint8Array[];
  idempotencyKey: string;
}

/**
 * Submits through the client (validation against the live schema, the gate, retries with one
 * idempotency key), waits (a webhook published to `client.events`, else polling), and
 * downloads every output through the client's fetch. The AI SDK's abort signal reaches each step.
 */
export async function runAndDownload(
  client: MediaGenClient,
  params: GenerateParams,
  run: ParsedOptions & { idempotencyKey: string },
  signal: AbortSignal | undefined,
  maxOutputBytes: number,
): Promise<Completed> {
  const where = site(client, 'generate', params);
  let generation: Generation;
  try {
    generation = await client.generations.run(params, {
      idempotencyKey: run.idempotencyKey,
      signal,
      ...(run.pollIntervalMs === undefined ? {} : { intervalMs: run.pollIntervalMs }),
      ...(run.timeoutMs === undefined ? {} : { timeoutMs: run.timeoutMs }),
    });
  } catch (e) {
    throw toAISDKError(e, where);
  }
  const asked = typeof params.number_results === 'number' && params.number_results >= 1 ? params.number_results : 1;
  let outputs: Uint8Array[];
  try {
    outputs = await download(client, generation, signal, { count: asked, maxOutputBytes });
  } catch (e) {
    // A completed generation whose outputs did not arrive: the key returns it unbilled.
    throw attach(e, { idempotencyKey: run.idempotencyKey });
  }
  return { generation, outputs, idempotencyKey: run.idempotencyKey };
}

/**
 * The output links of a completed generation (`outputLinks`), as many as were asked for: the
 * answer does not decide how many are read (a list of thousands would be thousands of
 * downloads held in memory), nor are extra links images.
 */
export function linksToRead(generation: Generation, count: number = NUMBER_RESULTS_MAX): string[] {
  return outputLinks(generation).slice(0, Math.min(count, NUMBER_RESULTS_MAX));
}

/**
 * Every output's bytes through the client (no Authorization header; a refused link is signed
 * afresh), each read as a stream and stopped past `maxOutputBytes`: held in memory whole, an
 * output is bounded, whatever the link answers.
 */
export async function download(
  client: MediaGenClient,
  generation: Generation,
  signal: AbortSignal | undefined,
  { count, maxOutputBytes }: { count?: number; maxOutputBytes: number },
): Promise<Uint8Array[]> {
  const urls = linksToRead(generation, count);
  // Core reads `output_urls[index]`: it gets the links as read here.
  const target: Generation = { ...generation, output_urls: urls };
  try {
    return await Promise.all(
      urls.map(async (_, index) => {
        const body = await client.generations.download(target, { index, signal, stream: true });
        return readBounded(body, maxOutputBytes, generation, index, signal);
      }),
    );
  } catch (e) {
    const generationId = typeof generation.generation_id === 'string' ? generation.generation_id : undefined;
    throw toAISDKError(attach(e, { generationId }), site(client, `generations/${generation.generation_id}`));
  }
}

/**
 * Names the generation (and the submit's key) on an error that lacks them, on the MediaGen
 * error itself or on the AI SDK error made from it (`data`), so the app can find the
 * completed, billed generation again instead of resubmitting.
 */
function attach(error: unknown, context: { generationId?: string | undefined; idempotencyKey?: string | undefined }): unknown {
  const target = isMediaGenError(error)
    ? (error as { generationId?: string; idempotencyKey?: string })
    : APICallError.isInstance(error) && error.data && typeof error.data === 'object'
      ? (error.data as { generationId?: string; idempotencyKey?: string })
      : undefined;
  if (!target) return error;
  if (context.generationId !== undefined) target.generationId ??= context.generationId;
  if (context.idempotencyKey !== undefined) target.idempotencyKey ??= context.idempotencyKey;
  return error;
}

/** An output past `maxOutputBytes`: the generation is completed (and billed); its id lets the app fetch it another way. */
class OutputTooLargeError extends MediaGenError {
  override name = 'OutputTooLargeError';
  constructor(generation: Generation, index: number, max: number) {
    super(`Output ${index} of generation ${String(generation.generation_id).slice(0, 64)} is larger than maxOutputBytes (${max} bytes).`, {
      code: 'OUTPUT_TOO_LARGE',
      retryable: false,
      next: 'Raise maxOutputBytes in createMediaGen() if the output is expected this large; the generation is completed, do not resubmit it.',
    });
    (this as { generationId?: string }).generationId = typeof generation.generation_id === 'string' ? generation.generation_id : undefined;
  }
}

async function readBounded(
  body: ReadableStream<Uint8Array> | Uint8Array,
  max: number,
  generation: Generation,
  index: number,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  // A response without a body (a 204) comes back as its bytes.
  if (body instanceof Uint8Array) {
    if (body.byteLength > max) throw new OutputTooLargeError(generation, index, max);
    return body;
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        // Hangs up: an endless body is not read to its end.
        await reader.cancel().catch(() => {});
        throw new OutputTooLargeError(generation, index, max);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof OutputTooLargeError) throw error;
    if (signal?.aborted) throw new AbortError(undefined, signal.reason);
    // The body broke off (a reset, a truncated chunk): only the error's name and code are quoted.
    const e = error as { name?: unknown; code?: unknown; cause?: { code?: unknown } };
    const why = [e?.name, e?.cause?.code ?? e?.code].filter((x) => typeof x === 'string').join(' ');
    throw new ConnectionError(`Download of output ${index} broke off after ${size} bytes${why ? ` (${why.slice(0, 80)})` : ''}.`);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** `providerMetadata.mediagen`'s shared part: what the generation cost and how to find it again. */
export function generationMetadata(generation: Generation, idempotencyKey: string) {
  return {
    generationId: generation.generation_id,
    creditsUsed: generation.credits_used,
    model: generation.model,
    durationMs: generation.duration_ms,
    requestId: generation.request_id,
    idempotencyKey,
  };
}

/** Response info for the AI SDK's telemetry. */
export function responseOf(generation: Generation, modelId: string) {
  return {
    timestamp: dateOf(generation.created_at),
    modelId,
    headers: generation.request_id ? { 'x-request-id': generation.request_id } : undefined,
  };
}

/** A date from the answer, or now when it holds none: never an Invalid Date (whose `toISOString` throws). */
export function dateOf(value: unknown): Date {
  const date = typeof value === 'string' ? new Date(value) : new Date(Number.NaN);
  return Number.isNaN(date.getTime()) ? new Date() : date;
}
