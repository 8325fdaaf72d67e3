import { NoSuchModelError, type SharedV4Warning } from '@ai-sdk/provider';
import type { GenerateParams, Generation, MediaGenClient, Model } from '@mediagen/core';
import { API_PREFIX } from '@mediagen/core/wire';
import { type CallSite, toAISDKError } from './errors.js';
import type { ParsedOptions } from './options.js';

/** What a model object needs from its provider: the client (made lazily) and its name. */
export interface ModelConfig {
  provider: string;
  client(): MediaGenClient;
}

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
  return { generation, outputs: await download(client, generation, signal), idempotencyKey: run.idempotencyKey };
}

export async function download(client: MediaGenClient, generation: Generation, signal: AbortSignal | undefined): Promise<Uint8Array[]> {
  const count = generation.output_urls?.length ?? (generation.output_url ? 1 : 0);
  try {
    return await Promise.all(Array.from({ length: count }, (_, index) => client.generations.download(generation, { index, signal })));
  } catch (e) {
    throw toAISDKError(e, site(client, `generations/${generation.generation_id}`));
  }
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
    timestamp: new Date(generation.created_at),
    modelId,
    headers: generation.request_id ? { 'x-request-id': generation.request_id } : undefined,
  };
}
