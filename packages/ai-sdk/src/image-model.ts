import type { ImageModelV4, ImageModelV4CallOptions, ImageModelV4Result } from '@ai-sdk/provider';
import type { GenerateParams, Model } from '@mediagen/core';
import { KeysInFlight } from './keys.js';
import { callOptions } from './options.js';
import {
  generationMetadata,
  inputOf,
  liveModel,
  type ModelConfig,
  maxResults,
  responseOf,
  runAndDownload,
  Warnings,
  withStoredInputs,
} from './run.js';

/** The AI SDK's image settings as the model's own params; what the model has no param for is a warning. */
function imageParams(model: Model, o: ImageModelV4CallOptions, w: Warnings, config: ModelConfig): Partial<GenerateParams> {
  const p: Partial<GenerateParams> = {};
  const has = (key: keyof Model['params']) => model.params[key] !== undefined;
  const values = (key: keyof Model['params']) => (model.params[key]?.values ?? []).join(', ');
  if (o.prompt !== undefined) {
    if (has('prompt')) p.prompt = o.prompt;
    else w.unsupported('prompt', `${model.slug} takes no prompt; it was not sent.`);
  }
  if (has('number_results')) p.number_results = o.n;
  else if (o.n > 1) w.unsupported('n', `${model.slug} makes one image per generation; one was made.`);
  if (o.size !== undefined) {
    if (has('size')) p.size = o.size;
    else
      w.unsupported(
        'size',
        `${model.slug} has no size param${has('aspect_ratio') ? `; use aspectRatio (${values('aspect_ratio')})` : ''}.`,
      );
  }
  if (o.aspectRatio !== undefined) {
    if (has('aspect_ratio')) p.aspect_ratio = o.aspectRatio;
    else w.unsupported('aspectRatio', `${model.slug} has no aspect_ratio param${has('size') ? `; use size (${values('size')})` : ''}.`);
  }
  if (o.seed !== undefined) {
    if (has('seed')) p.seed = o.seed;
    else w.unsupported('seed', `${model.slug} takes no seed.`);
  }
  if (o.files && o.files.length > 0) {
    const urls = o.files.map((f) => inputOf(f, 'an input image', config)) as string[];
    if (has('reference_images')) p.reference_images = urls;
    else {
      p.input_image = urls[0] as string;
      if (urls.length > 1) w.unsupported('files', `${model.slug} takes one input image; the first was sent.`);
    }
  }
  if (o.mask !== undefined) w.unsupported('mask', 'MediaGen models take no mask; it was not sent.');
  return p;
}

/**
 * An image model of the account's list, for `generateImage`. Each call is one generation
 * (`number_results` = the call's `n`); `maxImagesPerCall` is the model's live `number_results`
 * max, so `generateImage` never asks one generation for more than the model makes.
 */
export class MediaGenImageModel implements ImageModelV4 {
  readonly specificationVersion = 'v4';
  readonly maxImagesPerCall: (options: { modelId: string }) => Promise<number>;
  readonly supportsMaskInputs = false;
  readonly #config: ModelConfig;
  readonly #keys = new KeysInFlight();

  constructor(
    readonly modelId: string,
    config: ModelConfig,
  ) {
    this.#config = config;
    this.maxImagesPerCall = async () => maxResults(await liveModel(config, modelId, 'image'));
  }

  get provider(): string {
    return this.#config.provider;
  }

  async doGenerate(options: ImageModelV4CallOptions): Promise<ImageModelV4Result> {
    const run = callOptions(options);
    const { idempotencyKey } = run;
    // Claimed before the first await, so two calls of one generateImage cannot share a key.
    const release = this.#keys.claim(idempotencyKey);
    try {
      const model = await liveModel(this.#config, this.modelId, 'image', options.abortSignal);
      const warnings = new Warnings();
      const built = { ...imageParams(model, options, warnings, this.#config), ...run.params, model: this.modelId } as GenerateParams;
      const params = await withStoredInputs(this.#config, built, options.abortSignal);
      const done = await runAndDownload(this.#config.client(), params, run, options.abortSignal, this.#config.maxOutputBytes);
      const meta = generationMetadata(done.generation, idempotencyKey);
      return {
        images: done.outputs,
        // A completed generation with no output is not resent: that would bill again.
        isRetryable: false,
        warnings: warnings.list,
        providerMetadata: { mediagen: { ...meta, images: done.outputs.map((_, index) => ({ ...meta, index })) } },
        response: responseOf(done.generation, this.modelId),
      };
    } finally {
      release();
    }
  }
}
