import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigurationError } from '@mediagen/core';
import type { OutputInfo, OutputSink } from '@mediagen/core/ledger';
import { NUMBER_RESULTS_MAX } from '@mediagen/core/wire';
import { FileOutputSink } from '@mediagen/sqlite';

/**
 * The batch's downloads: the ledger's `persistOutputs` into `--out` (`<generation_id>/<index>-<name>`),
 * recorded in the ledger once stored, so a resume never downloads a stored output again. A file
 * already complete under its name (renamed into place, then the process was killed before the
 * ledger recorded it) is kept, not fetched again. At most the contract's 4 outputs per generation.
 */
export function batchOutputSink(out: string): OutputSink {
  const root = resolve(out);
  const files = new FileOutputSink({ directory: root, baseUrl: pathToFileURL(root).href });
  return {
    async put(name: string, body: ReadableStream<Uint8Array>, info: OutputInfo): Promise<string> {
      if (info.index >= NUMBER_RESULTS_MAX) {
        await body.cancel().catch(() => {});
        throw new ConfigurationError(`The service listed more than ${NUMBER_RESULTS_MAX} outputs for one generation: not downloaded.`);
      }
      const done = await stat(resolve(root, name)).catch(() => undefined);
      if (done?.isFile()) {
        await body.cancel().catch(() => {});
        return pathToFileURL(resolve(root, name)).href;
      }
      return files.put(name, body, info);
    },
  };
}
