import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import type { OutputInfo, OutputSink } from '@mediagen/core/ledger';

export interface FileOutputSinkOptions {
  /** Where the files go (created if missing). */
  directory: string;
  /** The URL the app serves `directory` at (`/outputs`, `https://cdn.example/outputs`). */
  baseUrl: string;
}

/**
 * `persistOutputs` into a directory the app serves: each output is written to a temporary file
 * and renamed into place, so a crash never leaves half a file under the final name.
 */
export class FileOutputSink implements OutputSink {
  readonly #root: string;
  readonly #baseUrl: string;

  constructor(options: FileOutputSinkOptions) {
    this.#root = resolve(options.directory);
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async put(name: string, body: Uint8Array, _info: OutputInfo): Promise<string> {
    const path = resolve(this.#root, name);
    const inside = relative(this.#root, path);
    // Names come from the ledger (`outputName`), already reduced; this holds for any caller.
    if (inside === '' || inside.startsWith('..') || resolve(this.#root, inside) !== path) {
      throw new TypeError(`Output name outside the directory: ${name.slice(0, 120)}`);
    }
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${globalThis.crypto.randomUUID()}.part`;
    await writeFile(temporary, body);
    await rename(temporary, path);
    return `${this.#baseUrl}/${inside.split(sep).map(encodeURIComponent).join('/')}`;
  }
}
