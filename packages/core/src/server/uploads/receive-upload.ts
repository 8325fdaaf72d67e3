import { createSha256 } from '../../crypto/sha256';
import { ACCEPTED_FORMATS, type InputKind, MEDIA_FORMATS, type MediaFormat, SNIFF_BYTES, sniffMedia } from '../../wire/media';
import type { MediaStore } from '../media-store';
import { routeError } from '../route-error';

export interface UploadBounds {
  maxBytes: Readonly<Record<InputKind, number>>;
  /** Longest wait for the next bytes. */
  idleTimeoutMs: number;
  /** Longest a whole upload may take. */
  timeoutMs: number;
}

export interface ReceivedUpload {
  sha256: string;
  format: MediaFormat;
  size: number;
}

/**
 * Streams a request body into `store` (`receiveMedia`), after checking its `Content-Length`
 * against the largest limit: a body that says it is too large is refused before a byte is read.
 */
export async function receiveUpload(request: Request, store: MediaStore, bounds: UploadBounds): Promise<ReceivedUpload> {
  const largest = Math.max(...Object.values(bounds.maxBytes));
  const header = request.headers.get('content-length');
  const declared = header === null ? undefined : Number(header);
  if (declared !== undefined && !(Number.isSafeInteger(declared) && declared >= 0))
    throw routeError('BAD_REQUEST', 'Content-Length is not a number of bytes.');
  if (declared !== undefined && declared > largest) throw tooLarge(largest);
  if (!request.body) throw notAccepted('The upload is empty.');
  return receiveMedia(request.body, store, bounds, { size: declared });
}

export interface ReceiveOptions {
  /** The exact length the body claims (a `Content-Length`, a `Blob`'s size): a body that passes it or falls short is refused. */
  size?: number | undefined;
  /** The one kind accepted (the field's): another is refused before anything is stored. */
  kind?: InputKind | undefined;
  /** Ends the read (and keeps nothing) when it aborts. */
  signal?: AbortSignal | undefined;
}

/**
 * Streams a body into `store` under a temporary key, then moves it to the key its digest names
 * (`<sha256>.<format>`), reading it a chunk at a time (memory is one chunk and the sniffed head).
 * The kind is read from the first bytes, and the body is cut off with `413` as soon as it passes
 * its kind's limit or its declared size; with time bounds, a body that stalls or trickles ends in
 * `408`. Nothing is kept of a refused body. The one implementation of these rules: the upload
 * route and `mediaInputs` (files handed to the client) both go through it.
 */
export async function receiveMedia(
  stream: ReadableStream<Uint8Array>,
  store: MediaStore,
  bounds: Pick<UploadBounds, 'maxBytes'> & Partial<UploadBounds>,
  options: ReceiveOptions = {},
): Promise<ReceivedUpload> {
  const { size: declared, kind: expected, signal } = options;
  const reader = stream.getReader();
  const deadline = bounds.timeoutMs === undefined ? undefined : Date.now() + bounds.timeoutMs;
  const read = async () => {
    signal?.throwIfAborted();
    const { done, value } = await (deadline === undefined && bounds.idleTimeoutMs === undefined
      ? reader.read()
      : readWithin(reader, Math.min(bounds.idleTimeoutMs ?? Infinity, (deadline ?? Infinity) - Date.now())));
    signal?.throwIfAborted();
    // A stream handed over by code may yield anything: only bytes are hashed and stored.
    if (!done && !(value instanceof Uint8Array)) throw notAccepted('The stream yielded something other than bytes (Uint8Array chunks).');
    return done ? ({ done, value: undefined } as const) : ({ done, value } as const);
  };
  const cancel = () => reader.cancel().catch(() => {});
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    // The head, to tell the kind (and so the limit) before anything is stored.
    const head: Uint8Array[] = [];
    let size = 0;
    let ended = false;
    while (size < SNIFF_BYTES) {
      const { done, value } = await read();
      if (done) {
        ended = true;
        break;
      }
      head.push(value);
      size += value.byteLength;
    }
    if (ended && declared !== undefined && size < declared) throw routeError('BAD_REQUEST', 'The upload ended before its Content-Length.');
    const first = concat(head);
    const format = sniffMedia(first);
    if (!format) throw notAccepted('The file is none of the formats the service reads (it was read from its bytes, not its name or type).');
    const { kind, type } = MEDIA_FORMATS[format];
    if (expected !== undefined && kind !== expected)
      throw notAccepted(
        `The file is ${article(kind)} ${kind} (${format}); ${article(expected)} ${expected} is needed: ${ACCEPTED_FORMATS[expected]}.`,
      );
    const limit = bounds.maxBytes[kind];
    const over = (n: number) => n > limit || (declared !== undefined && n > declared);
    if (over(size) || (declared !== undefined && declared > limit)) throw tooLarge(limit, kind);
    const hash = createSha256();
    // The body's own refusal (413, 408) is the answer, whatever the store makes of the broken stream.
    let refused: unknown;
    hash.update(first);
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          controller.enqueue(first);
          if (ended) controller.close();
        },
        async pull(controller) {
          try {
            const { done, value } = await read();
            if (done) {
              if (declared !== undefined && size < declared) throw routeError('BAD_REQUEST', 'The upload ended before its Content-Length.');
              return controller.close();
            }
            size += value.byteLength;
            if (over(size)) throw tooLarge(limit, kind);
            hash.update(value);
            controller.enqueue(value);
          } catch (error) {
            refused = error;
            controller.error(error);
          }
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    const temporary = `upload-${globalThis.crypto.randomUUID()}.${format}`;
    // With its Content-Length (a browser's upload has one) the store is told the size: S3 then
    // streams one PUT of it instead of buffering multipart parts (8 MiB per upload in memory).
    const info = declared === undefined ? { contentType: type } : { contentType: type, size: declared };
    await store.put(temporary, body, info).catch((error: unknown) => {
      throw refused ?? error;
    });
    const sha256 = hash.hex();
    try {
      await store.move(temporary, `${sha256}.${format}`);
    } catch (error) {
      await store.delete(temporary).catch(() => {});
      throw error;
    }
    return { sha256, format, size };
  } catch (error) {
    cancel();
    throw error;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

/** `an image`, `a video`, `an audio`: the article for a kind, in the refusals that name one. */
export const article = (kind: InputKind) => (kind === 'video' ? 'a' : 'an');

/** The next chunk, or `408` when none comes within `ms`. */
async function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(routeError('REQUEST_TIMEOUT', 'The upload stalled or was too slow to arrive.')), Math.max(0, ms));
  });
  try {
    return await Promise.race([reader.read(), late]);
  } finally {
    clearTimeout(timer);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

const MB = 1024 * 1024;

function tooLarge(limit: number, kind?: InputKind) {
  const what = kind ? `${kind} uploads` : 'uploads';
  return routeError('UPLOAD_TOO_LARGE', `The upload is over the ${Math.floor(limit / MB)} MB limit for ${what}.`);
}

function notAccepted(message: string) {
  return routeError('MEDIA_NOT_ACCEPTED', message);
}
