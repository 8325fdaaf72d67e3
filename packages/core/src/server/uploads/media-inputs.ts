import { ConfigurationError, isMediaGenError, MediaGenError } from '../../errors';
import type { GenerateParams } from '../../types';
import { ACCEPTED_FORMATS, INPUT_KINDS, INPUT_MAX_BYTES, type InputField, type InputKind } from '../../wire/media';
import type { MediaStore } from '../media-store';
import { article, receiveMedia } from './receive-upload';
import { INPUT_LINK_SECONDS, INPUT_MIN_LIFE_SECONDS } from './uploads';

/** What the client's `inputs` option takes: the submit's params in, the same params with every file a link out. */
export type MediaInputs = (params: GenerateParams, signal?: AbortSignal) => Promise<GenerateParams>;

export interface MediaInputsOptions {
  /** Where the files are kept, behind links the service fetches: `S3MediaStore` (`@mediagen/s3`), `FileMediaStore` (`@mediagen/core/node`). */
  store: MediaStore;
  /** Largest file per kind, in bytes; default (and most) `INPUT_MAX_BYTES`: images 20 MB, video 200 MB, audio 50 MB. */
  maxBytes?: Partial<Record<InputKind, number>>;
}

/** A file's bytes as a stream, with its exact size when known. */
export interface OpenedMedia {
  stream: ReadableStream<Uint8Array>;
  size?: number | undefined;
}

/** @internal Turns a value that is not a `Blob`, bytes or a Web stream into one (Node: file paths, Node streams); undefined when it is none. */
export type OpenMedia = (value: unknown, field: InputField) => Promise<OpenedMedia | undefined> | OpenedMedia | undefined;

/** How many links are remembered, so the same file gets the same link (and so the same body) on every submit. */
const REMEMBERED = 1000;
const HOUR = 3600;

/**
 * The client's `inputs` option for server-side code: every `Blob`, `ArrayBuffer`, `Uint8Array`
 * (a Node `Buffer` is one) or `ReadableStream<Uint8Array>` in `input_image`, `input_video`,
 * `input_audio` or `reference_images` is streamed into `store` (its kind read from its bytes,
 * refused past its kind's limit while streaming), named by the sha256 of its bytes, and replaced
 * by the store's link, which lasts about 7 days (`INPUT_LINK_SECONDS`). Strings (URLs,
 * generation ids) pass through unchanged.
 *
 * `new MediaGenClient({ inputs: mediaInputs({ store }) })`, then
 * `client.generations.create({ model: 'image-upscale', input_image: blob })`.
 *
 * Idempotency-safe: the same bytes are one object, and get the same link (its expiry is rounded
 * down to the hour, and remembered for this instance's later submits), so a create sent again
 * with the same `idempotencyKey` sends the same body, and the service replays it.
 */
export function mediaInputs(options: MediaInputsOptions): MediaInputs {
  return createMediaInputs(options, undefined, 'mediaInputs');
}

/** @internal `mediaInputs`, with `open` for the values a runtime adds (Node: paths and streams). */
export function createMediaInputs(options: MediaInputsOptions, open: OpenMedia | undefined, name: string): MediaInputs {
  const store = options?.store;
  if (!store || typeof store.put !== 'function' || typeof store.link !== 'function' || typeof store.move !== 'function')
    throw new ConfigurationError(
      `${name}: \`store\` must be a MediaStore (S3MediaStore from @mediagen/s3, FileMediaStore from @mediagen/core/node).`,
    );
  const maxBytes = { ...INPUT_MAX_BYTES };
  for (const [kind, bytes] of Object.entries(options.maxBytes ?? {}) as [InputKind, number][]) {
    if (!(kind in INPUT_MAX_BYTES) || !Number.isSafeInteger(bytes) || bytes <= 0 || bytes > INPUT_MAX_BYTES[kind])
      throw new ConfigurationError(
        `${name}: \`maxBytes.${kind}\` must be a whole number of bytes, at most ${INPUT_MAX_BYTES[kind as InputKind]}.`,
      );
    maxBytes[kind] = bytes;
  }
  // key → the expiry its link was first made with (the same link while it has long enough left).
  const expiries = new Map<string, number>();
  const expiryOf = (key: string): number => {
    const now = Date.now() / 1000;
    const known = expiries.get(key);
    if (known !== undefined && known - now >= INPUT_MIN_LIFE_SECONDS) return known;
    const expires = Math.floor((now + INPUT_LINK_SECONDS) / HOUR) * HOUR;
    expiries.delete(key);
    if (expiries.size >= REMEMBERED) expiries.delete(expiries.keys().next().value as string);
    expiries.set(key, expires);
    return expires;
  };

  async function store1(field: InputField, value: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    if (value === undefined || value === null) return value;
    const opened = (await open?.(value, field)) ?? (typeof value === 'string' ? undefined : asMedia(value));
    if (!opened) {
      if (typeof value === 'string') return value;
      throw new ConfigurationError(`${name}: \`${field}\` takes ${accepted(open !== undefined)}; got ${describe(value)}.`);
    }
    const kind = INPUT_KINDS[field];
    try {
      const { sha256, format } = await receiveMedia(opened.stream, store, { maxBytes }, { size: opened.size, kind, signal });
      const key = `${sha256}.${format}`;
      return await store.link(key, { expiresAt: new Date(expiryOf(key) * 1000) });
    } catch (error) {
      if (signal?.aborted && !isMediaGenError(error)) throw error;
      throw inputError(field, error);
    }
  }

  return async (params, signal) => {
    if (params === null || typeof params !== 'object') return params;
    let out = params;
    // One file at a time: memory and open files stay one file's worth whatever the params hold.
    for (const field of Object.keys(INPUT_KINDS) as InputField[]) {
      const value = params[field];
      if (value === undefined) continue;
      let next: unknown;
      if (field === 'reference_images') {
        if (!Array.isArray(value)) {
          if (typeof value === 'string') continue;
          throw new ConfigurationError(`${name}: \`reference_images\` takes an array of ${accepted(open !== undefined)}.`);
        }
        const items: unknown[] = [];
        for (const item of value) items.push(await store1(field, item, signal));
        if (items.every((item, i) => item === value[i])) continue;
        next = items;
      } else {
        next = await store1(field, value, signal);
        if (next === value) continue;
      }
      out = { ...out, [field]: next };
    }
    return out;
  };
}

/** A `Blob`, bytes or a Web stream as a stream (and its size); undefined for anything else. */
function asMedia(value: unknown): OpenedMedia | undefined {
  if (typeof Blob !== 'undefined' && value instanceof Blob)
    return { stream: value.stream() as ReadableStream<Uint8Array>, size: value.size };
  if (value instanceof ArrayBuffer) return bytes(new Uint8Array(value));
  if (value instanceof Uint8Array) return bytes(value);
  if (typeof ReadableStream !== 'undefined' && value instanceof ReadableStream) return { stream: value as ReadableStream<Uint8Array> };
  return undefined;
}

/** Bytes already in memory, handed on in 64 KiB views (no copy). */
function bytes(all: Uint8Array): OpenedMedia {
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= all.byteLength) return controller.close();
      controller.enqueue(all.subarray(at, at + 65_536));
      at += 65_536;
    },
  });
  return { stream, size: all.byteLength };
}

function accepted(node: boolean): string {
  const files = node
    ? 'a URL, a generation id, a file path (./photo.jpg, /abs/path, ~/file, file:///…), a Blob, an ArrayBuffer, a Uint8Array or Buffer, or a ReadableStream or Node stream of bytes'
    : 'a URL, a generation id, a Blob, an ArrayBuffer, a Uint8Array or Buffer, or a ReadableStream of bytes';
  return files;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'no prototype'})`;
  return `a ${typeof value}`;
}

/** A refusal of the file itself (its kind, its size), as a typed error naming the field; the store's own errors as they are. */
function inputError(field: InputField, error: unknown): unknown {
  if (!isMediaGenError(error) || error.code === 'STORAGE_ERROR' || error.code === 'CONFIGURATION_ERROR') return error;
  const kind = INPUT_KINDS[field];
  const next =
    error.code === 'UPLOAD_TOO_LARGE' ? `Send a smaller ${kind}.` : `Send ${article(kind)} ${kind} file: ${ACCEPTED_FORMATS[kind]}.`;
  return new MediaGenError(`\`${field}\`: ${error.message}`, { code: error.code, next, cause: error });
}
