import { InvalidArgumentError, NoSuchModelError, type ProviderV4 } from '@ai-sdk/provider';
import { type GenerateParams, MediaGenClient } from '@mediagen/core';
import { MediaGenImageModel } from './image-model.js';
import { DEFAULT_MAX_OUTPUT_BYTES, type ModelConfig } from './run.js';
import { MediaGenVideoModel } from './video-model.js';

export interface MediaGenProviderSettings {
  /** Default: `MEDIAGEN_API_KEY`. */
  apiKey?: string;
  /** Default: `MEDIAGEN_BASE_URL`, else the local emulator's address. */
  baseUrl?: string;
  /** A custom fetch (an in-process emulator's `emu.fetch` in tests, a proxy, instrumentation). */
  fetch?: typeof fetch;
  /**
   * Your own `MediaGenClient` (then `apiKey`, `baseUrl` and `fetch` are not used). Give the one
   * your webhook receiver publishes to (`createWebhookHandler({ client })`): calls then finish
   * on the webhook instead of the next poll.
   */
  client?: MediaGenClient;
  /**
   * The most bytes one output may have (each is held in memory whole, as the AI SDK takes it).
   * A link answering more ends the call with an `APICallError` whose `data.code` is
   * `OUTPUT_TOO_LARGE` and `data.generationId` names the completed generation. Default 1 GiB.
   */
  maxOutputBytes?: number;
  /**
   * Where file data (bytes, base64) given as an input image goes, so the service can fetch it:
   * `mediaInputs({ store })` from `@mediagen/core/server` (`S3MediaStore` from `@mediagen/s3`,
   * `FileMediaStore` from `@mediagen/core/node`). Each file is stored once under its sha256 and
   * sent as the store's link. Absent: file data is refused (`UnsupportedFunctionalityError`); URLs work either way.
   */
  inputs?: (params: GenerateParams, signal?: AbortSignal) => Promise<GenerateParams>;
}

export interface MediaGenProvider extends ProviderV4 {
  /** An image model, for `generateImage`. */
  image(modelId: string): MediaGenImageModel;
  imageModel(modelId: string): MediaGenImageModel;
  /** A video model, for `experimental_generateVideo`. */
  video(modelId: string): MediaGenVideoModel;
  videoModel(modelId: string): MediaGenVideoModel;
}

const PROVIDER = 'mediagen';

/** One client made on first use (so a missing key fails the call, not the import). */
function lazyClient(settings: MediaGenProviderSettings): () => MediaGenClient {
  let client: MediaGenClient | undefined = settings.client;
  return () => {
    client ??= new MediaGenClient({
      ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
      ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }),
      ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
    });
    return client;
  };
}

function build(settings: MediaGenProviderSettings, clientPerModel: boolean): MediaGenProvider {
  // A provider the caller made owns one client (its model-list cache and gate) for all its models.
  const shared = clientPerModel ? undefined : lazyClient(settings);
  const maxOutputBytes = settings.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (typeof maxOutputBytes !== 'number' || !Number.isSafeInteger(maxOutputBytes) || maxOutputBytes <= 0) {
    throw new InvalidArgumentError({ argument: 'maxOutputBytes', message: 'maxOutputBytes must be a whole number of bytes > 0.' });
  }
  if (settings.inputs !== undefined && typeof settings.inputs !== 'function') {
    throw new InvalidArgumentError({
      argument: 'inputs',
      message: 'inputs must be a function: mediaInputs({ store }) from @mediagen/core/server.',
    });
  }
  const config = (): ModelConfig => ({
    provider: `${PROVIDER}.image`,
    client: shared ?? lazyClient(settings),
    maxOutputBytes,
    inputs: settings.inputs,
  });
  const image = (modelId: string) => new MediaGenImageModel(modelId, config());
  const video = (modelId: string) => new MediaGenVideoModel(modelId, { ...config(), provider: `${PROVIDER}.video` });
  const none = (modelType: 'languageModel' | 'embeddingModel') => (modelId: string) => {
    throw new NoSuchModelError({ modelId, modelType, message: 'MediaGen provides image and video models only.' });
  };
  return {
    specificationVersion: 'v4',
    image,
    imageModel: image,
    video,
    videoModel: video,
    languageModel: none('languageModel'),
    embeddingModel: none('embeddingModel'),
  };
}

/** A MediaGen provider for the Vercel AI SDK. */
export function createMediaGen(settings: MediaGenProviderSettings = {}): MediaGenProvider {
  return build(settings, false);
}

/**
 * The default provider, reading `MEDIAGEN_API_KEY` and `MEDIAGEN_BASE_URL`. It holds no state
 * of its own: each model object it makes owns its client. Make your own with `createMediaGen()`
 * to share one client (and its model-list cache) across models.
 */
export const mediagen: MediaGenProvider = build({}, true);
