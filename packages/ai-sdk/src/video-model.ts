import {
  InvalidArgumentError,
  type JSONValue,
  type Experimental_VideoModelV4 as VideoModelV4,
  type Experimental_VideoModelV4CallOptions as VideoModelV4CallOptions,
  type Experimental_VideoModelV4File as VideoModelV4File,
  type Experimental_VideoModelV4OperationStartResult as VideoModelV4OperationStartResult,
  type Experimental_VideoModelV4OperationStatusResult as VideoModelV4OperationStatusResult,
  type Experimental_VideoModelV4Result as VideoModelV4Result,
} from '@ai-sdk/provider';
import { type GenerateParams, type Generation, GenerationFailedError, type Model } from '@mediagen/core';
import { API_PREFIX } from '@mediagen/core/wire';
import { toAISDKError } from './errors.js';
import { KeysInFlight } from './keys.js';
import { callOptions, type ParsedOptions } from './options.js';
import {
  dateOf,
  download,
  generationMetadata,
  inputOf,
  linksToRead,
  liveModel,
  type ModelConfig,
  maxResults,
  responseOf,
  runAndDownload,
  Warnings,
  withStoredInputs,
} from './run.js';

const urlOf = (file: VideoModelV4File, what: string, config: ModelConfig): string => inputOf(file, what, config) as string;

/** The (resolution, aspect ratio) of the model's `video_matrix` whose dimensions are `size`. */
function matrixEntry(model: Model, size: string, ratio: string | undefined): { resolution: string; ratio: string } | undefined {
  const dims = model.video_matrix?.dimensions ?? {};
  for (const [resolution, byRatio] of Object.entries(dims)) {
    for (const [r, d] of Object.entries(byRatio)) {
      if (d === size && (ratio === undefined || r === ratio || r.split(' ')[0] === ratio)) return { resolution, ratio: r };
    }
  }
  return undefined;
}

/** The AI SDK's video settings as the model's own params; what the model has no param for is a warning. */
function videoParams(model: Model, o: VideoModelV4CallOptions, w: Warnings, config: ModelConfig): Partial<GenerateParams> {
  const p: Partial<GenerateParams> = {};
  const has = (key: keyof Model['params']) => model.params[key] !== undefined;
  if (o.prompt !== undefined) {
    if (has('prompt')) p.prompt = o.prompt;
    else w.unsupported('prompt', `${model.slug} takes no prompt; it was not sent.`);
  }
  if (o.n > 1) {
    if (has('number_results')) p.number_results = o.n;
    else w.unsupported('n', `${model.slug} makes one video per generation; one was made.`);
  }
  if (o.aspectRatio === 'adaptive') w.unsupported('aspectRatio', 'MediaGen takes an explicit aspect ratio; the model default was used.');
  else if (o.aspectRatio !== undefined) {
    if (has('aspect_ratio')) p.aspect_ratio = o.aspectRatio;
    else w.unsupported('aspectRatio', `${model.slug} has no aspect_ratio param.`);
  }
  if (o.resolution !== undefined) {
    const entry = matrixEntry(model, o.resolution, p.aspect_ratio);
    if (entry && has('resolution')) {
      p.resolution = entry.resolution;
      p.aspect_ratio ??= entry.ratio.split(' ')[0];
    } else {
      w.unsupported(
        'resolution',
        `${model.slug} has no ${o.resolution} output; it takes resolution (${(model.params.resolution?.values ?? []).join(', ')}).`,
      );
    }
  }
  if (o.duration !== undefined) {
    if (has('duration')) p.duration = o.duration;
    else w.unsupported('duration', `${model.slug} takes no duration.`);
  }
  if (o.fps !== undefined) w.unsupported('fps', 'MediaGen models choose their own frame rate.');
  if (o.seed !== undefined) {
    if (has('seed')) p.seed = o.seed;
    else w.unsupported('seed', `${model.slug} takes no seed.`);
  }
  const first = o.image ?? o.frameImages?.find((f) => f.frameType === 'first_frame')?.image;
  if (first) p.input_image = urlOf(first, 'the first frame', config);
  if (o.frameImages?.some((f) => f.frameType === 'last_frame'))
    w.unsupported('frameImages', 'MediaGen takes a first frame only; the last frame was not sent.');
  if (o.inputReferences && o.inputReferences.length > 0) {
    if (has('reference_images')) p.reference_images = o.inputReferences.map((f) => urlOf(f, 'a reference', config));
    else w.unsupported('inputReferences', `${model.slug} takes no reference images.`);
  }
  if (o.generateAudio !== undefined) {
    if (has('audio')) p.audio = o.generateAudio;
    else w.unsupported('generateAudio', `${model.slug} has no audio track.`);
  }
  return p;
}

const MEDIA_TYPES: Record<string, string> = { webm: 'video/webm', mp4: 'video/mp4', mov: 'video/quicktime' };

/** The media type the output link's file name says; empty lets the AI SDK detect it from the bytes. */
function mediaTypeOf(url: string | null | undefined): string {
  const ext = /\.([a-z0-9]+)(?:$|\?)/i.exec(url ?? '')?.[1]?.toLowerCase();
  return (ext && MEDIA_TYPES[ext]) ?? '';
}

const videosOf = (generation: Generation, outputs: Uint8Array[]) => {
  const links = linksToRead(generation);
  return outputs.map((data, index) => ({ type: 'binary' as const, data, mediaType: mediaTypeOf(links[index]) }));
};

interface Operation {
  generationId: string;
  idempotencyKey: string;
}

function operationOf(value: JSONValue): Operation {
  const o = value as Partial<Operation> | null;
  if (typeof o?.generationId !== 'string' || typeof o.idempotencyKey !== 'string') {
    throw new InvalidArgumentError({
      argument: 'operation',
      message: 'Not an operation this provider started ({ generationId, idempotencyKey }).',
    });
  }
  return { generationId: o.generationId, idempotencyKey: o.idempotencyKey };
}

/**
 * A video model of the account's list, for `experimental_generateVideo`: `doGenerate` submits,
 * waits and downloads in one call; `doStart`/`doStatus` serve the AI SDK's start/status flow
 * (`poll` option, `experimental_startVideo`), with the AI SDK's own `idempotency-key` as the
 * submit's key.
 */
export class MediaGenVideoModel implements VideoModelV4 {
  readonly specificationVersion = 'v4';
  readonly maxVideosPerCall: (options: { modelId: string }) => Promise<number>;
  readonly #config: ModelConfig;
  readonly #keys = new KeysInFlight();

  constructor(
    readonly modelId: string,
    config: ModelConfig,
  ) {
    this.#config = config;
    this.maxVideosPerCall = async () => maxResults(await liveModel(config, modelId, 'video'));
  }

  get provider(): string {
    return this.#config.provider;
  }

  async #prepare(
    options: VideoModelV4CallOptions,
    run: ParsedOptions & { idempotencyKey: string },
  ): Promise<{ params: GenerateParams; warnings: Warnings }> {
    const model = await liveModel(this.#config, this.modelId, 'video', options.abortSignal);
    const warnings = new Warnings();
    const built = { ...videoParams(model, options, warnings, this.#config), ...run.params, model: this.modelId } as GenerateParams;
    const params = await withStoredInputs(this.#config, built, options.abortSignal);
    return { params, warnings };
  }

  async doGenerate(options: VideoModelV4CallOptions): Promise<VideoModelV4Result> {
    const run = callOptions(options);
    // Claimed before the first await, so two calls of one generateVideo cannot share a key.
    const release = this.#keys.claim(run.idempotencyKey);
    try {
      const { params, warnings } = await this.#prepare(options, run);
      const done = await runAndDownload(this.#config.client(), params, run, options.abortSignal, this.#config.maxOutputBytes);
      return {
        videos: videosOf(done.generation, done.outputs),
        warnings: warnings.list,
        providerMetadata: { mediagen: generationMetadata(done.generation, run.idempotencyKey) },
        response: responseOf(done.generation, this.modelId),
      };
    } finally {
      release();
    }
  }

  async doStart(options: VideoModelV4CallOptions & { webhookUrl?: string }): Promise<VideoModelV4OperationStartResult> {
    const run = callOptions(options);
    const { params, warnings } = await this.#prepare(options, run);
    if (options.webhookUrl !== undefined) {
      warnings.unsupported('webhookUrl', 'MediaGen webhooks go to the endpoints set in account settings, not to a per-call URL.');
    }
    const client = this.#config.client();
    try {
      const submitted = await client.generations.create(params, { idempotencyKey: run.idempotencyKey, signal: options.abortSignal });
      const operation: Operation = { generationId: submitted.generation_id, idempotencyKey: run.idempotencyKey };
      return {
        operation: { ...operation },
        warnings: warnings.list,
        providerMetadata: {
          mediagen: {
            generationId: submitted.generation_id,
            creditsEstimate: submitted.credits_estimate,
            idempotencyKey: run.idempotencyKey,
          },
        },
        response: { timestamp: dateOf(submitted.created_at), modelId: this.modelId, headers: undefined },
      };
    } catch (e) {
      throw toAISDKError(e, { url: `${client.baseUrl}${API_PREFIX}/generate`, body: params });
    }
  }

  async doStatus(options: { operation: JSONValue; abortSignal?: AbortSignal }): Promise<VideoModelV4OperationStatusResult> {
    const { generationId, idempotencyKey } = operationOf(options.operation);
    const client = this.#config.client();
    const site = { url: `${client.baseUrl}${API_PREFIX}/generations/${generationId}`, body: undefined };
    let generation: Generation;
    try {
      generation = await client.generations.get(generationId, { signal: options.abortSignal });
    } catch (e) {
      throw toAISDKError(e, site);
    }
    const response = responseOf(generation, this.modelId);
    const mediagen = generationMetadata(generation, idempotencyKey);
    // A failed generation is the typed error (code, retryable, credits) rather than a bare message.
    if (generation.status === 'failed') throw toAISDKError(new GenerationFailedError(generation), site);
    if (generation.status !== 'completed') return { status: 'pending', providerMetadata: { mediagen }, response };
    const outputs = await download(client, generation, options.abortSignal, { maxOutputBytes: this.#config.maxOutputBytes });
    return { status: 'completed', videos: videosOf(generation, outputs), warnings: [], providerMetadata: { mediagen }, response };
  }
}
