import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { ConfigurationError } from '@mediagen/core';
import type { OutputInfo, OutputSink } from '@mediagen/core/ledger';

export interface FileOutputSinkOptions {
  /** Where the files go (created if missing). */
  directory: string;
  /** The URL the app serves `directory` at (`/outputs`, `https://cdn.example/outputs`). */
  baseUrl: string;
}

/**
 * `persistOutputs` into a directory the app serves. Each output is streamed (a chunk at a time,
 * never whole in memory) to a temporary file beside its final name, then renamed into place: a
 * crash or a failed download (a body that breaks off, one past the ledger's `maxOutputBytes`)
 * never leaves a partial file under the final name, and the temporary file is deleted.
 */
export class FileOutputSink implements OutputSink {
  readonly #root: string;
  readonly #baseUrl: string;

  constructor(options: FileOutputSinkOptions) {
    this.#root = resolve(options.directory);
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async put(name: string, body: ReadableStream<Uint8Array>, _info: OutputInfo): Promise<string> {
    const path = resolve(this.#root, name);
    const inside = relative(this.#root, path);
    // Names come from the ledger (`outputName`), already reduced; this holds for any caller.
    if (inside === '' || inside.startsWith('..') || resolve(this.#root, inside) !== path) {
      await body.cancel().catch(() => {});
      throw new ConfigurationError(`Output name outside the directory: ${name.slice(0, 120)}`);
    }
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${globalThis.crypto.randomUUID()}.part`;
    try {
      // Backpressure end to end: the download is read only as fast as the disk takes it.
      await pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), createWriteStream(temporary, { flags: 'wx' }));
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => {});
      throw error;
    }
    return `${this.#baseUrl}/${inside.split(sep).map(encodeURIComponent).join('/')}`;
  }
}
