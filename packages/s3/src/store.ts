import { ConfigurationError, MediaGenError } from '@mediagen/core';
import type { DirectUpload, MediaInfo, MediaStore } from '@mediagen/core/server';
import { S3StoreError } from './errors';
import { EMPTY_SHA256, encodeRfc3986, SigV4Signer, sha256Hex, UNSIGNED_PAYLOAD } from './sigv4';

/** Where the bucket is and how to sign for it: see the README for R2, MinIO and AWS settings. */
export interface S3MediaStoreOptions {
  /** The bucket's name. */
  bucket: string;
  /** The bucket's region: `us-east-1`, `eu-west-3`…; `auto` for Cloudflare R2. Default `us-east-1` (also MinIO's). */
  region?: string | undefined;
  /**
   * The S3 API's origin: `https://<account>.r2.cloudflarestorage.com` (R2), `http://127.0.0.1:9000`
   * (MinIO). Default AWS's, `https://s3.<region>.amazonaws.com`.
   */
  endpoint?: string | undefined;
  /** The access key id (not secret: every presigned link carries it). */
  accessKeyId: string;
  /** The secret access key: kept in a private field, never in an error, a log or `toJSON`. */
  secretAccessKey: string;
  /** With temporary credentials (STS, an IAM role): links then last at most as long as the session. */
  sessionToken?: string | undefined;
  /**
   * `https://endpoint/bucket/key` rather than `https://bucket.endpoint/key`. Default `true` with a custom
   * `endpoint` (R2, MinIO), `false` on AWS.
   */
  forcePathStyle?: boolean | undefined;
  /** Put before every key (`'mediagen/'`), so one bucket can serve several apps. */
  prefix?: string | undefined;
  /** A custom `fetch` (default: the global one). */
  fetch?: typeof fetch | undefined;
  /**
   * The part size of a multipart upload (a `put` of unknown size), in bytes: also the most memory
   * one `put` holds. Default 8 MiB; at least 5 MiB (S3's smallest part), at most 5 GiB.
   */
  partSize?: number | undefined;
  /** The clock requests and links are signed with, in ms since the epoch (default `Date.now`). For tests. */
  now?: (() => number) | undefined;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const MIN_PART = 5 * MiB;
const MAX_PARTS = 10_000;
/** S3's largest single PUT. */
const MAX_SINGLE_PUT = 5 * GiB;
/** S3's longest presigned URL: 7 days. */
const MAX_LINK_SECONDS = 7 * 24 * 60 * 60;
/** How much of an error answer is read: S3's error documents are well under this. */
const MAX_ERROR_BODY = 16 * 1024;

/**
 * Core's `MediaStore` on an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO), over `fetch` and a
 * Web Crypto SigV4 signer: no AWS SDK, runs on Node, Bun, Deno and edge runtimes.
 *
 * - `put` streams: a known size is one `PUT` with the body streamed as it is read; an unknown size
 *   is a multipart upload of `partSize` parts read one at a time (memory bounded), aborted on any
 *   failure, so nothing is ever left under the key.
 * - `link` is a presigned `GET` (at most 7 days) served as an attachment with the stored type; one
 *   key and expiry always sign to the same link.
 * - `move` is a server-side `CopyObject`, then a `DeleteObject` of the source.
 * - `directUpload` is a presigned `PUT` signed for one `Content-Type` and one exact `Content-Length`.
 */
export class S3MediaStore implements MediaStore {
  readonly #signer: SigV4Signer;
  readonly #bucket: string;
  readonly #base: URL;
  /** The endpoint's own path ('' mostly), without a trailing slash. */
  readonly #basePath: string;
  readonly #pathStyle: boolean;
  readonly #prefix: string;
  readonly #fetch: typeof fetch;
  readonly #partSize: number;
  readonly #now: () => number;
  readonly #secrets: string[];

  constructor(options: S3MediaStoreOptions) {
    if (!options || typeof options !== 'object')
      throw new ConfigurationError('S3MediaStore needs options: { bucket, accessKeyId, secretAccessKey, … }.');
    const { bucket, accessKeyId, secretAccessKey, sessionToken } = options;
    if (typeof bucket !== 'string' || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
      throw new ConfigurationError('S3MediaStore: `bucket` must be a bucket name (3-63 lower-case letters, digits, dots and hyphens).');
    if (typeof accessKeyId !== 'string' || accessKeyId === '') throw new ConfigurationError('S3MediaStore: `accessKeyId` is missing.');
    if (typeof secretAccessKey !== 'string' || secretAccessKey === '')
      throw new ConfigurationError('S3MediaStore: `secretAccessKey` is missing.');
    // An empty token (an unset variable read as '') is no token.
    if (sessionToken !== undefined && typeof sessionToken !== 'string')
      throw new ConfigurationError('S3MediaStore: `sessionToken`, when given, must be a string.');
    const region = options.region ?? 'us-east-1';
    if (typeof region !== 'string' || !/^[a-z0-9-]+$/.test(region))
      throw new ConfigurationError('S3MediaStore: `region` must be a region name such as `us-east-1` (`auto` for R2).');
    let base: URL;
    try {
      base = new URL(options.endpoint ?? `https://s3.${region}.amazonaws.com`);
    } catch {
      throw new ConfigurationError('S3MediaStore: `endpoint` is not a URL (e.g. `https://<account>.r2.cloudflarestorage.com`).');
    }
    if ((base.protocol !== 'https:' && base.protocol !== 'http:') || base.username || base.password || base.search || base.hash)
      throw new ConfigurationError('S3MediaStore: `endpoint` must be an http(s) origin with no credentials, query or fragment.');
    const partSize = options.partSize ?? 8 * MiB;
    if (!Number.isInteger(partSize) || partSize < MIN_PART || partSize > MAX_SINGLE_PUT)
      throw new ConfigurationError("S3MediaStore: `partSize` must be a whole number of bytes from 5 MiB (S3's smallest part) to 5 GiB.");
    const prefix = options.prefix ?? '';
    if (typeof prefix !== 'string') throw new ConfigurationError('S3MediaStore: `prefix` must be a string.');
    if (options.fetch !== undefined && typeof options.fetch !== 'function')
      throw new ConfigurationError('S3MediaStore: `fetch` must be a function.');
    if (options.now !== undefined && typeof options.now !== 'function')
      throw new ConfigurationError('S3MediaStore: `now` must be a function.');

    this.#signer = new SigV4Signer({ accessKeyId, secretAccessKey, sessionToken }, region);
    this.#bucket = bucket;
    this.#base = base;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#pathStyle = options.forcePathStyle ?? options.endpoint !== undefined;
    if (!this.#pathStyle && bucket.includes('.'))
      throw new ConfigurationError(
        'S3MediaStore: a bucket name with dots needs `forcePathStyle: true` (its virtual-hosted name breaks TLS).',
      );
    this.#prefix = prefix;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#partSize = partSize;
    this.#now = options.now ?? Date.now;
    this.#secrets = [secretAccessKey, ...(sessionToken ? [sessionToken] : [])];
  }

  /** The object's URL (unsigned). The key is encoded segment by segment, as it is signed. */
  #url(key: string, query?: Record<string, string>): URL {
    const full = this.#prefix + key;
    if (typeof key !== 'string' || key === '') throw new ConfigurationError('S3MediaStore: a key must be a non-empty string.');
    if (new TextEncoder().encode(full).length > 1024)
      throw new ConfigurationError('S3MediaStore: a key (with the prefix) must be at most 1024 bytes.');
    // `.` and `..` segments would be resolved away by URL parsing (a request for another key).
    if (full.split('/').some((s) => s === '.' || s === '..') || key.startsWith('/') || full.startsWith('/'))
      throw new ConfigurationError('S3MediaStore: a key may not start with `/` or have `.` or `..` segments.');
    if ([...full].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
      throw new ConfigurationError('S3MediaStore: a key may not hold control characters.');
    const path = full.split('/').map(encodeRfc3986).join('/');
    const url = new URL(this.#base);
    if (this.#pathStyle) url.pathname = `${this.#basePath}/${this.#bucket}/${path}`;
    else {
      url.hostname = `${this.#bucket}.${this.#base.hostname}`;
      url.pathname = `${this.#basePath}/${path}`;
    }
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
    return url;
  }

  /** Removes the secret and session token from foreign text (an error answer, a fetch failure). */
  #redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('[redacted]');
    // A signed URL echoed back: its signature and token are no one's business.
    return out.replace(/(X-Amz-(?:Signature|Security-Token|Credential)=)[^&\s"'<]*/gi, '$1[redacted]').slice(0, 500);
  }

  async #send(
    what: string,
    method: string,
    url: URL,
    init: { headers?: Record<string, string>; body?: BodyInit | null; payloadHash?: string; okStatuses?: number[] },
  ): Promise<Response> {
    const headers = await this.#signer.signHeaders(
      { method, url, headers: init.headers ?? {}, payloadHash: init.payloadHash ?? EMPTY_SHA256 },
      new Date(this.#now()),
    );
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers,
        body: init.body ?? null,
        // Node's fetch sends a stream body only half-duplex; others ignore the option.
        ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (error) {
      if (error instanceof MediaGenError) throw error;
      const detail =
        error instanceof Error
          ? this.#redact(`${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}`)
          : 'unknown error';
      throw new S3StoreError(`S3 ${what} failed: no answer from the bucket (${detail}).`, {
        retryable: true,
        cause: safeCause(error, (t) => this.#redact(t)),
      });
    }
    if (response.ok || init.okStatuses?.includes(response.status)) return response;
    throw await this.#failure(what, response);
  }

  async #failure(what: string, response: Response, bodyText?: string): Promise<S3StoreError> {
    const text = bodyText ?? (await readBounded(response, MAX_ERROR_BODY));
    const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
    const message = /<Message>([^<]{1,300})<\/Message>/.exec(text)?.[1];
    const status = response.status;
    const retryable = status >= 500 || status === 429 || code === 'SlowDown' || code === 'RequestTimeout' || code === 'InternalError';
    const said = [code, message].filter(Boolean).join(': ');
    return new S3StoreError(this.#redact(`S3 ${what} failed: ${status}${said ? ` ${said}` : ''}.`), {
      s3Status: status,
      s3Code: code,
      retryable,
    });
  }

  async put(key: string, body: ReadableStream<Uint8Array>, info: MediaInfo): Promise<void> {
    const url = this.#url(key);
    if (!(body instanceof ReadableStream)) throw new ConfigurationError('S3MediaStore.put: `body` must be a ReadableStream.');
    const contentType = checkContentType(info?.contentType);
    const size = info.size;
    if (size !== undefined && (!Number.isSafeInteger(size) || size < 0))
      throw new ConfigurationError('S3MediaStore.put: `info.size` must be a whole number of bytes.');
    if (size !== undefined && size <= MAX_SINGLE_PUT) {
      // One PUT, the body streamed as read; a body that is not exactly `size` bytes errors the
      // request, so S3 (which keeps an object only once all Content-Length bytes came) keeps nothing.
      const guarded = exactBody(body, size);
      try {
        const answer = await this.#send(`PUT of "${key}"`, 'PUT', url, {
          headers: { 'content-type': contentType, 'content-length': String(size) },
          body: guarded.stream,
          payloadHash: UNSIGNED_PAYLOAD,
        });
        await answer.body?.cancel();
      } catch (error) {
        if (guarded.failure() !== undefined) throw bodyError(key, guarded.failure());
        throw error;
      }
      return;
    }
    await this.#multipart(key, url, body, contentType);
  }

  async #multipart(key: string, url: URL, body: ReadableStream<Uint8Array>, contentType: string): Promise<void> {
    const reader = body.getReader();
    const parts = new PartReader(reader, this.#partSize);
    let first: { bytes: Uint8Array<ArrayBuffer>; done: boolean };
    try {
      first = await parts.next();
    } catch (error) {
      throw bodyError(key, error);
    }
    if (first.done) {
      // Smaller than one part: one PUT of what was read.
      await this.#send(`PUT of "${key}"`, 'PUT', url, {
        headers: { 'content-type': contentType, 'content-length': String(first.bytes.length) },
        body: first.bytes,
        payloadHash: await sha256Hex(first.bytes),
      });
      return;
    }
    const created = await this.#send(`CreateMultipartUpload of "${key}"`, 'POST', this.#url(key, { uploads: '' }), {
      headers: { 'content-type': contentType },
    });
    const createdText = await readBounded(created, MAX_ERROR_BODY);
    const uploadId = xmlValue(createdText, 'UploadId');
    if (!uploadId)
      throw new S3StoreError(`S3 CreateMultipartUpload of "${key}" failed: the answer had no UploadId.`, {
        s3Status: created.status,
        retryable: true,
      });
    const etags: string[] = [];
    try {
      let part: { bytes: Uint8Array<ArrayBuffer>; done: boolean } | undefined = first;
      while (part) {
        if (etags.length >= MAX_PARTS)
          throw new S3StoreError(`S3 multipart upload of "${key}" failed: more than ${MAX_PARTS} parts; raise partSize.`, {
            retryable: false,
          });
        const number = etags.length + 1;
        const answer = await this.#send(
          `UploadPart ${number} of "${key}"`,
          'PUT',
          this.#url(key, { partNumber: String(number), uploadId }),
          {
            headers: { 'content-length': String(part.bytes.length) },
            body: part.bytes,
            payloadHash: await sha256Hex(part.bytes),
          },
        );
        const etag = answer.headers.get('etag');
        await answer.body?.cancel();
        if (!etag)
          throw new S3StoreError(`S3 UploadPart ${number} of "${key}" failed: the answer had no ETag.`, {
            s3Status: answer.status,
            retryable: true,
          });
        etags.push(etag);
        if (part.done) break;
        try {
          part = await parts.next();
        } catch (error) {
          throw bodyError(key, error);
        }
        // The stream ended exactly on a part boundary: nothing more to send.
        if (part.done && part.bytes.length === 0) break;
      }
      const xml = `<CompleteMultipartUpload>${etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
      const bytes = new TextEncoder().encode(xml);
      const done = await this.#send(`CompleteMultipartUpload of "${key}"`, 'POST', this.#url(key, { uploadId }), {
        headers: { 'content-type': 'application/xml', 'content-length': String(bytes.length) },
        body: bytes,
        payloadHash: await sha256Hex(bytes),
      });
      // S3 may answer 200 and still fail: the error is then in the body.
      const text = await readBounded(done, MAX_ERROR_BODY);
      if (/<Error>/.test(text)) throw await this.#failure(`CompleteMultipartUpload of "${key}"`, done, text);
    } catch (error) {
      await reader.cancel().catch(() => {});
      await this.#send(`AbortMultipartUpload of "${key}"`, 'DELETE', this.#url(key, { uploadId }), { okStatuses: [404] })
        .then((r) => r.body?.cancel())
        .catch(() => {
          // The bucket's lifecycle rule for incomplete uploads is the backstop (see the README).
        });
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const source = `/${this.#bucket}/${(this.#prefix + from).split('/').map(encodeRfc3986).join('/')}`;
    this.#url(from);
    const answer = await this.#send(`CopyObject of "${from}" to "${to}"`, 'PUT', this.#url(to), {
      headers: { 'x-amz-copy-source': source },
    });
    // CopyObject may answer 200 and still fail: the error is then in the body.
    const text = await readBounded(answer, MAX_ERROR_BODY);
    if (/<Error>/.test(text)) throw await this.#failure(`CopyObject of "${from}" to "${to}"`, answer, text);
    await this.delete(from);
  }

  /**
   * Signed as of 7 days before `expiresAt`, for 7 days: the link is a function of the key and
   * `expiresAt` alone, so asking again (a resend of a recorded submit) gives the same link.
   */
  async link(key: string, options: { expiresAt: Date }): Promise<string> {
    const expiresAt = options?.expiresAt?.getTime?.();
    if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))
      throw new ConfigurationError('S3MediaStore.link: `expiresAt` must be a Date.');
    const signedAt = Math.ceil(expiresAt / 1000) * 1000 - MAX_LINK_SECONDS * 1000;
    if (signedAt > this.#now())
      throw new ConfigurationError('S3MediaStore.link: `expiresAt` is over 7 days ahead, the longest a presigned S3 URL can last.');
    const url = this.#url(key, { 'response-content-disposition': 'attachment' });
    return this.#signer.presign({ method: 'GET', url, expiresIn: MAX_LINK_SECONDS }, new Date(signedAt));
  }

  async delete(key: string): Promise<void> {
    const answer = await this.#send(`DeleteObject of "${key}"`, 'DELETE', this.#url(key), { okStatuses: [404] });
    await answer.body?.cancel();
  }

  /**
   * A presigned `PUT` signed for `Content-Type: contentType` and `Content-Length: maxBytes` exactly:
   * the bucket refuses any other type or length. So `maxBytes` is the file's own size (a browser
   * knows `file.size` before it sends), checked by the app against its limit before it asks.
   */
  async directUpload(key: string, options: { expiresInMs: number; contentType: string; maxBytes: number }): Promise<DirectUpload> {
    const expiresIn = linkSeconds(options?.expiresInMs, 'directUpload');
    const contentType = checkContentType(options.contentType);
    if (!Number.isSafeInteger(options.maxBytes) || options.maxBytes < 1 || options.maxBytes > MAX_SINGLE_PUT)
      throw new ConfigurationError("S3MediaStore.directUpload: `maxBytes` must be the upload's exact size in bytes (1 to 5 GiB).");
    const headers = { 'content-type': contentType, 'content-length': String(options.maxBytes) };
    const url = await this.#signer.presign({ method: 'PUT', url: this.#url(key), headers, expiresIn }, new Date(this.#now()));
    // Content-Length is the browser's to set (from the body); it must equal the signed one.
    return { url, method: 'PUT', headers: { 'content-type': contentType } };
  }

  toJSON(): Record<string, unknown> {
    return { bucket: this.#bucket, endpoint: this.#base.origin, accessKeyId: this.#signer.accessKeyId };
  }
}

function linkSeconds(expiresInMs: unknown, what: string): number {
  if (typeof expiresInMs !== 'number' || !Number.isFinite(expiresInMs) || expiresInMs <= 0)
    throw new ConfigurationError(`S3MediaStore.${what}: \`expiresInMs\` must be a positive number of milliseconds.`);
  const seconds = Math.ceil(expiresInMs / 1000);
  if (seconds > MAX_LINK_SECONDS)
    throw new ConfigurationError(`S3MediaStore.${what}: \`expiresInMs\` is over 7 days, the longest a presigned S3 URL can last.`);
  return seconds;
}

function checkContentType(value: unknown): string {
  if (typeof value !== 'string' || !/^[\w.+-]+\/[\w.+-]+(?:\s*;\s*[\w.+-]+=[\w.+-]+)*$/.test(value))
    throw new ConfigurationError('S3MediaStore: `contentType` must be a media type such as `image/png`.');
  return value;
}

/**
 * `body` as exactly `size` bytes: more or fewer error the stream (and so the request, which S3 then
 * drops: it keeps an object only once all Content-Length bytes came). `failure()` tells a failure of
 * the body from one of the bucket.
 */
function exactBody(body: ReadableStream<Uint8Array>, size: number): { stream: ReadableStream<Uint8Array>; failure(): unknown } {
  const reader = body.getReader();
  let seen = 0;
  let failure: unknown;
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
    failure = error ?? new Error('the body stream failed');
    controller.error(failure);
    reader.cancel(failure).catch(() => {});
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (error) {
        return fail(controller, error);
      }
      if (read.done) {
        if (seen !== size)
          return fail(
            controller,
            new ConfigurationError(`S3MediaStore.put: the body is shorter than info.size (${seen} of ${size} bytes).`),
          );
        return controller.close();
      }
      if (!(read.value instanceof Uint8Array))
        return fail(controller, new ConfigurationError('S3MediaStore.put: the body must yield Uint8Array chunks.'));
      seen += read.value.byteLength;
      if (seen > size)
        return fail(controller, new ConfigurationError(`S3MediaStore.put: the body is longer than info.size (${size} bytes).`));
      controller.enqueue(read.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { stream, failure: () => failure };
}

/** Reads a stream in parts of `size` bytes, one buffer at a time (a chunk across a boundary is split). */
class PartReader {
  #leftover: Uint8Array | undefined;
  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly size: number,
  ) {}

  /** Up to `size` bytes: `done` when the stream ended. */
  async next(): Promise<{ bytes: Uint8Array<ArrayBuffer>; done: boolean }> {
    const buffer = new Uint8Array(this.size);
    let filled = 0;
    while (filled < this.size) {
      let value = this.#leftover;
      this.#leftover = undefined;
      if (!value) {
        const read = await this.reader.read();
        if (read.done) return { bytes: buffer.subarray(0, filled), done: true };
        value = read.value;
        if (!(value instanceof Uint8Array)) throw new ConfigurationError('S3MediaStore.put: the body must yield Uint8Array chunks.');
      }
      const room = this.size - filled;
      if (value.byteLength > room) this.#leftover = value.subarray(room);
      const piece = value.byteLength > room ? value.subarray(0, room) : value;
      buffer.set(piece, filled);
      filled += piece.byteLength;
    }
    return { bytes: buffer, done: false };
  }
}

function bodyError(key: string, error: unknown): MediaGenError {
  if (error instanceof MediaGenError) return error;
  return new MediaGenError(`S3MediaStore.put of "${key}": the body stream failed; nothing was stored.`, {
    code: 'STORAGE_ERROR',
    retryable: false,
    cause: error,
  });
}

async function readBounded(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < limit) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } catch {
    // What was read is enough to say what failed.
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(total, limit));
  let offset = 0;
  for (const chunk of chunks) {
    const piece = chunk.subarray(0, bytes.length - offset);
    bytes.set(piece, offset);
    offset += piece.length;
    if (offset >= bytes.length) break;
  }
  return new TextDecoder().decode(bytes);
}

function xmlValue(text: string, tag: string): string | undefined {
  const raw = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(text)?.[1];
  return raw === undefined ? undefined : unescapeXml(raw);
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function unescapeXml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** A fetch failure's class and (redacted) message only, never its request. */
function safeCause(error: unknown, redact: (text: string) => string): Error | undefined {
  if (!(error instanceof Error)) return undefined;
  const copy = new Error(redact(error.message));
  copy.name = error.name;
  return copy;
}
