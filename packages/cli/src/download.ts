import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { type Generation, type MediaGenClient, parseOutputLink } from '@mediagen/core';
import { outputLinks } from '@mediagen/core/wire';

export interface Downloaded {
  /** The absolute path of each file written, in the links' order. */
  files: string[];
  /** Links the service listed beyond `limit`: never fetched. */
  skipped: number;
}

/**
 * Streams the outputs of a completed generation into `dir` (never whole in memory): the first
 * `limit` links, since the service's list is its text and a request yields at most what it asked
 * (`number_results`, at most the contract's 4); a longer list is not followed. Each file is
 * written under a temporary name and renamed when complete, so an interrupted download never
 * leaves a truncated file under the real name.
 */
export async function downloadOutputs(
  client: MediaGenClient,
  generation: Generation,
  dir: string,
  { limit, signal }: { limit: number; signal?: AbortSignal },
): Promise<Downloaded> {
  const listed = outputLinks(generation);
  const urls = listed.slice(0, Math.max(0, limit));
  // Core reads `output_urls[index]`: it gets the links as read here (a string there is one link, not one per character).
  const target: Generation = { ...generation, output_urls: urls };
  const names = fileNames(generation, urls);
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (let index = 0; index < urls.length; index++) {
    const path = resolve(join(dir, names[index]!));
    await followingAbort(signal, (one) => downloadOne(client, target, index, path, one));
    files.push(path);
  }
  return { files, skipped: listed.length - urls.length };
}

/** Output `index` of `target` into `path`, through a temporary file. */
async function downloadOne(client: MediaGenClient, target: Generation, index: number, path: string, signal?: AbortSignal): Promise<void> {
  // --out may be a shared folder: the temporary name is not guessable, and it is created
  // exclusively (`wx`: a file or symlink planted there fails the open, never is written through).
  const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
  const body = await client.generations.download(target, { index, stream: true, ...(signal ? { signal } : {}) });
  try {
    // A response without a body (a 204) comes back as its bytes, empty: written as they are.
    const source = body instanceof Uint8Array ? Readable.from([body]) : Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
    await pipeline(source, createWriteStream(partial, { flags: 'wx' }), signal ? { signal } : {});
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/**
 * Runs `run` with a signal of its own that aborts when `parent` does, and takes its listener off
 * `parent` when `run` ends, however it ends. `fetch` (undici) leaves its abort listener on the
 * signal it is given until garbage collection: given the command's one signal, each download
 * left one behind (MaxListenersExceededWarning at 1,501).
 */
async function followingAbort<T>(parent: AbortSignal | undefined, run: (signal?: AbortSignal) => Promise<T>): Promise<T> {
  if (!parent) return run(undefined);
  const own = new AbortController();
  const abort = () => own.abort(parent.reason);
  if (parent.aborted) abort();
  else parent.addEventListener('abort', abort, { once: true });
  try {
    return await run(own.signal);
  } finally {
    parent.removeEventListener('abort', abort);
  }
}

/** Longest file name written: most file systems take 255 bytes, and `.<12 hex>.part` is added while writing. */
const NAME_MAX = 200;
/** The generation id's share of a name, and the longest extension kept. */
const ID_MAX = 64;
const EXT_MAX = 16;

/**
 * `<generation_id>-<name in the link>` per output: unique per generation, keeps the service's
 * extension. The names are the service's text: each is reduced to safe characters and a bounded
 * length, and two outputs never get one file (names equal, or equal but for case on a
 * case-insensitive disk): the later one gets its index added.
 */
function fileNames(generation: Generation, urls: readonly unknown[]): string[] {
  const id = String(generation.generation_id)
    .replace(/[^\w-]/g, '_')
    .slice(0, ID_MAX);
  const taken = new Set<string>();
  return urls.map((url, index) => {
    let name = fileName(url, index, NAME_MAX - id.length - 1);
    if (taken.has(name.toLowerCase())) name = withSuffix(name, `-${index}`, NAME_MAX - id.length - 1);
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = withSuffix(name, `-${index}-${n}`, NAME_MAX - id.length - 1);
    taken.add(name.toLowerCase());
    return `${id}-${name}`;
  });
}

/** The link's file name, safe: no directory part, only `[A-Za-z0-9_.-]`, at most `max` characters. */
function fileName(url: unknown, index: number, max: number): string {
  let name = `output-${index}`;
  try {
    name = parseOutputLink(url as string).filename;
  } catch {
    // A link of another shape (a proxy's): keep the generic name.
  }
  // The name comes from the service: never let it climb out of the directory.
  const safe = basename(name).replace(/[^\w.-]/g, '_') || `output-${index}`;
  return withSuffix(safe, '', max);
}

/** `name` with `suffix` before its extension, the stem shortened so the whole is at most `max` characters. */
function withSuffix(name: string, suffix: string, max: number): string {
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= EXT_MAX ? name.slice(dot) : '';
  const stem = ext ? name.slice(0, dot) : name;
  return `${stem.slice(0, Math.max(1, max - ext.length - suffix.length))}${suffix}${ext}`;
}
