import type { GenerateParams } from '@mediagen/core';
import { INPUT_KINDS, type InputField, type UploadedInput } from '@mediagen/core/wire';

export type { UploadedInput };

import { type GenerationRequestError, networkError, requestErrorOf } from './errors';
import { readJson } from './read-json';
import { routeUrl } from './routes';
import { SSE_MAX_EVENT_CHARS } from './sse';

/** Bytes of the files being uploaded sent so far, of all of them. */
export interface UploadProgress {
  loaded: number;
  total: number;
}

/** An upload's outcome, as a value (the hooks never throw). */
export type UploadResult = { uploaded: UploadedInput; error?: undefined } | { uploaded?: undefined; error: GenerationRequestError };

export interface UploadFileOptions {
  /** Where the app mounts `createMediaGenHandler`. Default `/api` (`POST /api/uploads`). */
  basePath?: string;
  /** Bytes sent so far (XMLHttpRequest's upload progress; with `fetch`, only at the start and the end). */
  onProgress?(progress: UploadProgress): void;
  /** Uses this instead of XMLHttpRequest (no progress in between: fetch has no upload progress). */
  fetch?: typeof fetch;
}

/**
 * The params with a `File`/`Blob` where an input goes: `input_image`, `input_video`,
 * `input_audio` and entries of `reference_images` may each be a file from the page (a file
 * picker's, a drop's, a canvas's `toBlob`), uploaded to the app before the submit.
 */
export type WithFiles<Params extends GenerateParams = GenerateParams> = {
  [K in keyof Params]: K extends 'input_image' | 'input_video' | 'input_audio'
    ? Params[K] | Blob
    : K extends 'reference_images'
      ? Array<string | Blob> | Extract<Params[K], undefined>
      : Params[K];
};

/**
 * Uploads one file to the app's `POST {basePath}/uploads`: its bytes as the body, its type as
 * `Content-Type` (`application/octet-stream` when the browser knows none: the handler reads the
 * kind from the bytes either way). XMLHttpRequest where there is one, for upload progress; else
 * `fetch`. Resolves with the handler's answer or its error as a value; never rejects.
 */
export async function uploadFile(file: Blob, options: UploadFileOptions = {}): Promise<UploadResult> {
  const url = routeUrl(options.basePath ?? '/api', 'uploads');
  const type = file.type || 'application/octet-stream';
  const total = file.size;
  options.onProgress?.({ loaded: 0, total });
  const useXhr = options.fetch === undefined && typeof XMLHttpRequest !== 'undefined';
  const result = useXhr ? await viaXhr(url, file, type, options.onProgress) : await viaFetch(url, file, type, options.fetch);
  if (result.uploaded) options.onProgress?.({ loaded: total, total });
  return result;
}

/** The answer read as an upload, or the error it is. */
function outcome(ok: boolean, status: number, statusText: string, body: unknown): UploadResult {
  if (!ok) return { error: requestErrorOf(status, statusText, body) };
  const b = body as Partial<UploadedInput> | undefined;
  if (typeof b?.input === 'string' && b.input !== '') return { uploaded: b as UploadedInput };
  return { error: networkError(new Error('The upload was answered without an input: the answer was cut off or is not the handler’s.')) };
}

async function viaFetch(url: string, file: Blob, type: string, given: typeof fetch | undefined): Promise<UploadResult> {
  const send = given ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  try {
    const response = await send(url, {
      method: 'POST',
      headers: { 'content-type': type, accept: 'application/json' },
      body: file,
      credentials: 'same-origin',
    });
    return outcome(response.ok, response.status, response.statusText, await readJson(response));
  } catch (thrown) {
    return { error: networkError(thrown) };
  }
}

function viaXhr(url: string, file: Blob, type: string, onProgress: UploadFileOptions['onProgress']): Promise<UploadResult> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('content-type', type);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.responseType = 'text';
    xhr.upload.onprogress = (event) => {
      onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    };
    xhr.onload = () => {
      const text = typeof xhr.responseText === 'string' ? xhr.responseText : '';
      let body: unknown;
      // The handler's answer is a few hundred bytes: a longer one is not its, and is not parsed.
      if (text.length <= SSE_MAX_EVENT_CHARS) {
        try {
          body = JSON.parse(text) as unknown;
        } catch {
          body = undefined;
        }
      }
      resolve(outcome(xhr.status >= 200 && xhr.status < 300, xhr.status, xhr.statusText, body));
    };
    xhr.onerror = () => resolve({ error: networkError(new Error('The upload got no answer.')) });
    xhr.onabort = () => resolve({ error: networkError(new Error('The upload was stopped.')) });
    xhr.ontimeout = () => resolve({ error: networkError(new Error('The upload timed out.')) });
    xhr.send(file);
  });
}

/** The files in the input fields of `params`, in order (a file given twice counts once). */
export function filesIn(params: unknown): Blob[] {
  const files = new Set<Blob>();
  if (typeof params !== 'object' || params === null) return [];
  for (const field of Object.keys(INPUT_KINDS) as InputField[]) {
    const value = (params as Record<string, unknown>)[field];
    for (const v of Array.isArray(value) ? value : [value]) if (isBlob(v)) files.add(v);
  }
  return [...files];
}

export const isBlob = (value: unknown): value is Blob => typeof Blob !== 'undefined' && value instanceof Blob;

/** `params` with each file in an input field replaced by `replace(file)`. */
export function replaceFiles<T>(params: unknown, replace: (file: Blob) => T): unknown {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return params;
  let out: Record<string, unknown> | undefined;
  for (const field of Object.keys(INPUT_KINDS) as InputField[]) {
    const value = (params as Record<string, unknown>)[field];
    const swap = (v: unknown) => (isBlob(v) ? replace(v) : v);
    if (Array.isArray(value) ? value.some(isBlob) : isBlob(value)) {
      out ??= { ...(params as Record<string, unknown>) };
      out[field] = Array.isArray(value) ? value.map(swap) : swap(value);
    }
  }
  return out ?? params;
}

/**
 * One hook's uploads: each file (the same `Blob` object) is uploaded once, and its token reused by
 * every estimate and submit that names it, a retry of the same submission included (the same
 * body under the same idempotency key). A failed upload is forgotten, so the next try uploads
 * again; a token past its `expires_at` is too. Files are known by identity, kept weakly.
 * `onProgress` hears the bytes sent of all uploads in flight (undefined once none is).
 */
export function createUploadCache(onProgress?: (progress: UploadProgress | undefined) => void) {
  const uploads = new WeakMap<Blob, Promise<UploadResult>>();
  const ids = new WeakMap<Blob, number>();
  /** Uploads in flight: bytes sent of each. */
  const inFlight = new Map<Blob, number>();
  let next = 0;
  const idOf = (file: Blob) => {
    let id = ids.get(file);
    if (id === undefined) ids.set(file, (id = ++next));
    return id;
  };
  const report = () => {
    if (inFlight.size === 0) return onProgress?.(undefined);
    let loaded = 0;
    let total = 0;
    for (const [file, sent] of inFlight) {
      loaded += sent;
      total += file.size;
    }
    onProgress?.({ loaded, total });
  };
  const start = (file: Blob, options: PrepareOptions) => {
    inFlight.set(file, 0);
    report();
    const started = uploadFile(file, {
      basePath: options.basePath,
      fetch: options.fetch,
      onProgress: (p) => {
        if (!inFlight.has(file)) return;
        inFlight.set(file, Math.min(p.loaded, file.size));
        report();
      },
    }).then((result) => {
      inFlight.delete(file);
      // A failed upload is forgotten: the next try sends it again.
      if (result.error && uploads.get(file) === started) uploads.delete(file);
      report();
      return result;
    });
    uploads.set(file, started);
    return started;
  };

  /**
   * Uploads the files in `params` not uploaded yet (the others' tokens are reused), then
   * answers the params as the handler takes them: each file replaced by its token.
   */
  async function prepare(params: unknown, options: PrepareOptions, again = true): Promise<Prepared> {
    const files = filesIn(params);
    if (files.length === 0) return { params };
    const results = await Promise.all(files.map((file) => uploads.get(file) ?? start(file, options)));
    const tokens = new Map<Blob, string>();
    let expired = false;
    for (const [i, file] of files.entries()) {
      const result = results[i]!;
      if (result.error) return { error: result.error };
      if (Date.parse(result.uploaded.expires_at) <= Date.now()) {
        // Kept past its token's life (a page left open for days): uploaded again, once.
        if (uploads.get(file) !== undefined && !inFlight.has(file)) uploads.delete(file);
        expired = true;
      } else tokens.set(file, result.uploaded.input);
    }
    if (expired) {
      return again
        ? prepare(params, options, false)
        : { error: networkError(new Error('The upload expired as soon as it was made: check the computer’s clock.')) };
    }
    return { params: replaceFiles(params, (file) => tokens.get(file)) };
  }
  return {
    /** The params as they identify a submission: each file by its identity in this hook. */
    identity(params: unknown): unknown {
      return replaceFiles(params, (file) => ({ file: idOf(file), size: file.size, type: file.type }));
    },
    prepare,
  };
}

interface PrepareOptions {
  basePath: string;
  fetch?: typeof fetch | undefined;
}

type Prepared = { params: unknown; error?: undefined } | { params?: undefined; error: GenerationRequestError };
