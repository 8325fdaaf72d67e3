import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { type Generation, type MediaGenClient, parseOutputLink } from '@mediagen/core';

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
  const urls = generation.output_urls ?? (generation.output_url ? [generation.output_url] : []);
  await mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (let index = 0; index < urls.length; index++) {
    const path = resolve(join(dir, fileName(generation, urls[index]!, index)));
    const partial = `${path}.part`;
    const body = await client.generations.download(generation, { index, stream: true, ...(signal ? { signal } : {}) });
    try {
      await pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), createWriteStream(partial), signal ? { signal } : {});
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    paths.push(path);
  }
  return paths;
}

/** `<generation_id>-<name in the link>`: unique per generation, keeps the service's extension. */
function fileName(generation: Generation, url: string, index: number): string {
  let name = `output-${index}`;
  try {
    name = parseOutputLink(url).filename;
  } catch {
    // A link of another shape (a proxy's): keep the generic name.
  }
  // The name comes from the service: never let it climb out of the directory.
  const safe = basename(name).replace(/[^\w.-]/g, '_') || `output-${index}`;
  return `${generation.generation_id.replace(/[^\w-]/g, '_')}-${safe}`;
}
