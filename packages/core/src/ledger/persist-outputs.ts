import type { MediaGenClient } from '../client';
import { AbortError, ConnectionError, MediaGenError } from '../errors';
import { parseOutputLink } from '../links/output-link';
import type { Generation } from '../types';
import type { OutputSink } from './output-sink';
import type { GenerationRecord } from './record';

/**
 * Default `maxOutputBytes`: 1 GiB, far above any image or clip the contract describes (and the
 * AI SDK provider's bound), far below what fills a disk by accident. Outputs are streamed, so
 * this bounds storage, not memory.
 */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024 * 1024;

export interface PersistOptions {
  /** The most bytes one output may have; past it the download is aborted. Default 1 GiB. */
  maxOutputBytes?: number;
}

/**
 * An output past `maxOutputBytes`: the download was aborted and the sink's copy abandoned. The
 * generation is completed (and billed): its links still serve it.
 */
export class OutputTooLargeError extends MediaGenError {
  override name = 'OutputTooLargeError';
  constructor(generationId: string, index: number, max: number) {
    super(`Output ${index} of generation ${generationId.slice(0, 64)} is larger than maxOutputBytes (${max} bytes): not persisted.`, {
      code: 'OUTPUT_TOO_LARGE',
      retryable: false,
      next: 'Raise maxOutputBytes in createGenerationLedger() if outputs are expected this large.',
    });
    (this as { generationId?: string }).generationId = generationId;
  }
}

/**
 * Copies each output of a completed record into `sink`, one at a time, as a stream: never more
 * than a chunk in memory, whatever the output's size (a 300 MB video held whole took a server
 * from 77 MB to ~1 GB). Each output is bounded by `maxOutputBytes`; past it the download is
 * aborted and the sink sees its stream fail, so it keeps nothing (see `OutputSink.put`).
 * Returns the sink's URLs in output order.
 */
export async function persistOutputs(
  client: MediaGenClient,
  record: GenerationRecord,
  sink: OutputSink,
  options: PersistOptions = {},
): Promise<string[]> {
  const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const id = record.generation_id as string;
  const generation = record.generation as Generation;
  const count = generation?.output_urls?.length ?? (generation?.output_url ? 1 : 0);
  const saved: string[] = [];
  for (let index = 0; index < count; index++) {
    const url = generation.output_urls?.[index] ?? generation.output_url ?? '';
    // Ends the download however `put` ends: past the bound, on a sink that failed or stopped
    // reading, or once it is done (then a no-op).
    const download = new AbortController();
    try {
      // download() signs the link afresh when it is near expiry or refused.
      const answer: ReadableStream<Uint8Array> | Uint8Array = await client.generations.download(generation, {
        index,
        stream: true,
        signal: download.signal,
      });
      // A response without a body (a 204) comes back as its (no) bytes.
      const body = answer instanceof Uint8Array ? (new Response(answer).body as ReadableStream<Uint8Array>) : answer;
      const info = { generationId: id, index, contentType: null };
      saved.push(await sink.put(outputName(id, index, url), bounded(body, max, download, id, index), info));
    } finally {
      download.abort();
    }
  }
  return saved;
}

/**
 * `body` passed through chunk by chunk, pulled only as fast as the sink writes. Fails with
 * `OutputTooLargeError` once more than `max` bytes came (aborting the download), and with a
 * typed `ConnectionError` when the body breaks off.
 */
function bounded(
  body: ReadableStream<Uint8Array>,
  max: number,
  download: AbortController,
  id: string,
  index: number,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let size = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          // Only the error's name and code are quoted: a runtime's message may hold the link.
          const e = error as { name?: unknown; code?: unknown; cause?: { code?: unknown } };
          const why = [e?.name, e?.cause?.code ?? e?.code].filter((x) => typeof x === 'string').join(' ');
          controller.error(
            download.signal.aborted && download.signal.reason instanceof MediaGenError
              ? download.signal.reason
              : new ConnectionError(
                  `Download of output ${index} of generation ${id.slice(0, 64)} broke off after ${size} bytes (${why.slice(0, 80)}).`,
                ),
          );
          return;
        }
        if (chunk.done) {
          controller.close();
          return;
        }
        size += chunk.value.byteLength;
        if (size > max) {
          const error = new OutputTooLargeError(id, index, max);
          // Hangs up: a body past the bound is not read to its end.
          download.abort(error);
          await reader.cancel(error).catch(() => {});
          controller.error(error);
          return;
        }
        controller.enqueue(chunk.value);
      },
      cancel(reason) {
        // The sink stopped reading (its own write failed): the download stops too.
        download.abort(reason instanceof MediaGenError ? reason : new AbortError('The output sink stopped reading.', reason));
        return reader.cancel(reason).catch(() => {});
      },
    },
    // No read-ahead: a chunk is fetched when the sink asks for one.
    { highWaterMark: 0 },
  );
}

/**
 * `<generation_id>/<index>-<filename>`, each part reduced to `[A-Za-z0-9._-]` (no `..`): the
 * names come from the service's answer, and a sink may map them onto a filesystem.
 */
export function outputName(generationId: string, index: number, url: string): string {
  let filename = 'output';
  try {
    filename = parseOutputLink(url).filename;
  } catch {
    // A link of another shape (a proxy's): the generic name.
  }
  const safe = (s: string) =>
    s
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 120) || '_';
  return `${safe(generationId)}/${index}-${safe(filename)}`;
}
