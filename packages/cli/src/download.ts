import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { type Generation, type MediaGenClient, parseOutputLink } from '@mediagen/core';
import { outputLinks } from '@mediagen/core/wire';

/**
 * Streams every output of a completed generation into `dir` (never whole in memory) and
 * returns the absolute paths. Each file is written under a temporary name and renamed when
 * complete, so an interrupted download never leaves a truncated file under the real name.
 */
export async function downloadOutputs(
  client: MediaGenClient,
  generation: Generation,
  dir: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const urls = outputLinks(generation);
  // Core reads `output_urls[index]`: it gets the links as read here (a string there is one link, not one per character).
  const target: Generation = { ...generation, output_urls: urls };
  const names = fileNames(generation, urls);
  await mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (let index = 0; index < urls.length; index++) {
    const path = resolve(join(dir, names[index]!));
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
    paths.push(path);
  }
  return paths;
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
