import type { FileHandle } from 'node:fs/promises';
import { ConfigurationError, isMediaGenError, MediaGenError } from '../errors';
import type { MediaInfo, MediaStore } from '../server/media-store';
import { ERROR_CODES, type ErrorCode } from '../wire/error-codes';

export interface FileMediaStoreOptions {
  /** The folder the files are kept in (made when missing). Share it between instances to share uploads. */
  directory: string;
  /**
   * The public address of the handler's uploads route, which serves these files to the service:
   * `https://app.example.com/api/uploads`. The real service fetches only public `https` links;
   * the emulator fetches `http://127.0.0.1…` ones with `allowLoopbackInputs`.
   */
  url: string;
  /**
   * Signs the links. Default: a random key kept in `<directory>/.link-key` (made once), so every
   * instance sharing the folder, and every restart, signs alike.
   */
  secret?: string;
}

/** The longest file name a key may make (most filesystems stop at 255 bytes). */
const MAX_NAME = 240;
/** A stored type is one line before the bytes, at most this long. */
const MAX_TYPE = 200;

type Fs = typeof import('node:fs/promises');

/**
 * The embedded `MediaStore`: files in a folder, served by the app's own handler (`GET
 * {basePath}/uploads/:key`) under signed, expiring links. For one machine, or instances that
 * share a folder; `@mediagen/s3` for a bucket. Each object is one file, named from its key
 * (percent-encoded, so no key can name a path outside the folder), holding its media type on a
 * first line and then the bytes: one rename makes both visible at once.
 */
export class FileMediaStore implements MediaStore {
  readonly #directory: string;
  readonly #url: string;
  #secret: Promise<string> | undefined;

  constructor(options: FileMediaStoreOptions) {
    if (typeof options?.directory !== 'string' || options.directory === '')
      throw new ConfigurationError('FileMediaStore: `directory` must be a folder path.');
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new ConfigurationError(
        'FileMediaStore: `url` must be the absolute address of the uploads route (https://app.example.com/api/uploads).',
      );
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password)
      throw new ConfigurationError('FileMediaStore: `url` must be an http(s) address with no query, fragment or credentials.');
    this.#directory = options.directory;
    this.#url = url.href.replace(/\/+$/, '');
    if (options.secret !== undefined) {
      if (typeof options.secret !== 'string' || options.secret.length < 16)
        throw new ConfigurationError('FileMediaStore: `secret` must be a string of at least 16 characters.');
      this.#secret = Promise.resolve(options.secret);
    }
  }

  async put(key: string, body: ReadableStream<Uint8Array>, info: MediaInfo): Promise<void> {
    const fs = await this.#ready();
    const path = this.#path(key);
    const type = info?.contentType;
    if (typeof type !== 'string' || type.length > MAX_TYPE || !/^[\w.+-]+\/[\w.+-]+(?:\s*;[^\n\r]*)?$/.test(type))
      throw new ConfigurationError('FileMediaStore.put: `contentType` must be a media type such as `image/png`.');
    const temporary = `${this.#directory}/.tmp-${globalThis.crypto.randomUUID()}`;
    let file: FileHandle | undefined;
    const reader = body.getReader();
    try {
      file = await fs.open(temporary, 'wx', 0o600);
      await file.write(`${type}\n`);
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (info.size !== undefined && size > info.size) throw sizeError(key, info.size);
        await file.write(value);
      }
      if (info.size !== undefined && size !== info.size) throw sizeError(key, info.size);
      await file.close();
      file = undefined;
      // A rename is atomic: a reader sees the old file or the whole new one, never a part.
      await fs.rename(temporary, path);
    } catch (error) {
      await reader.cancel().catch(() => {});
      await file?.close().catch(() => {});
      await fs.rm(temporary, { force: true });
      throw isMediaGenError(error) ? error : storeError(`FileMediaStore.put: "${key}" was not kept (${codeOf(error)}).`, error);
    }
  }

  async move(from: string, to: string): Promise<void> {
    const fs = await this.#ready();
    await fs.rename(this.#path(from), this.#path(to)).catch((error: unknown) => {
      throw storeError(`FileMediaStore.move: "${from}" could not be moved (${codeOf(error)}).`, error);
    });
  }

  async link(key: string, options: { expiresAt: Date }): Promise<string> {
    this.#path(key);
    const expiresAt = options?.expiresAt?.getTime?.();
    if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))
      throw new ConfigurationError('FileMediaStore.link: `expiresAt` must be a Date.');
    const expires = Math.ceil(expiresAt / 1000);
    return `${this.#url}/${key.split('/').map(encodeURIComponent).join('/')}?expires=${expires}&signature=${await this.#sign(key, expires)}`;
  }

  async delete(key: string): Promise<void> {
    const fs = await this.#ready();
    await fs.rm(this.#path(key), { force: true });
  }

  async respond(key: string, request: Request): Promise<Response> {
    const query = new URL(request.url).searchParams;
    const expires = Number(query.get('expires'));
    const signature = query.get('signature') ?? '';
    if (!/^\d{1,12}$/.test(query.get('expires') ?? '') || !/^[0-9a-f]{64}$/.test(signature))
      return refusal('LINK_INVALID', 'This link is not one of this app’s.');
    const { timingSafeEqual } = await import('node:crypto');
    if (!timingSafeEqual(Buffer.from(await this.#sign(key, expires), 'hex'), Buffer.from(signature, 'hex')))
      return refusal('LINK_INVALID', 'This link is not one of this app’s.');
    if (expires * 1000 <= Date.now()) return refusal('LINK_EXPIRED', 'This link has expired.');
    const fs = await this.#ready();
    let file: FileHandle;
    try {
      file = await fs.open(this.#path(key), 'r');
    } catch {
      return refusal('NOT_FOUND', 'Nothing is kept under this link any more.');
    }
    const head = Buffer.alloc(MAX_TYPE + 1);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const line = head.subarray(0, bytesRead).indexOf(10);
    const type = line > 0 ? head.subarray(0, line).toString('latin1') : 'application/octet-stream';
    const start = line + 1;
    const size = (await file.stat()).size - start;
    const headers = {
      'content-type': type,
      'content-length': String(size),
      'x-content-type-options': 'nosniff',
      'content-disposition': 'attachment',
      'cache-control': 'private, no-store',
    };
    if (request.method === 'HEAD') {
      await file.close();
      return new Response(null, { headers });
    }
    return new Response(bytesFrom(file, start), { headers });
  }

  toJSON(): Record<string, unknown> {
    return { directory: this.#directory, url: this.#url };
  }

  /** The key's file: `k-` and the key percent-encoded (never `.`, `..` or a path; never the `.link-key`). */
  #path(key: string): string {
    const name = typeof key === 'string' && key !== '' ? `k-${encodeURIComponent(key)}` : '';
    if (name === '' || name.length > MAX_NAME)
      throw new ConfigurationError(`FileMediaStore: a key is a non-empty string of at most ${MAX_NAME} characters once percent-encoded.`);
    return `${this.#directory}/${name}`;
  }

  async #sign(key: string, expires: number): Promise<string> {
    const { createHmac } = await import('node:crypto');
    return createHmac('sha256', await this.#key())
      .update(`mediagen file link\n${key}\n${expires}`)
      .digest('hex');
  }

  #key(): Promise<string> {
    this.#secret ??= (async () => {
      const fs = await this.#ready();
      const path = `${this.#directory}/.link-key`;
      try {
        // `wx`: made once; an instance that loses the race reads the winner's key.
        await fs.writeFile(path, Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('hex'), {
          flag: 'wx',
          mode: 0o600,
        });
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
      }
      const key = (await fs.readFile(path, 'utf8')).trim();
      if (key.length < 32) throw new ConfigurationError(`FileMediaStore: ${path} holds no key; delete it to make a new one.`);
      return key;
    })();
    return this.#secret;
  }

  async #ready(): Promise<Fs> {
    const fs = (await import('node:fs/promises')) as Fs;
    await fs.mkdir(this.#directory, { recursive: true });
    return fs;
  }
}

/** The file from byte `start` on, read as the response is sent (never whole into memory), closed at the end or on cancel. */
function bytesFrom(file: FileHandle, start: number): ReadableStream<Uint8Array> {
  let position = start;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = new Uint8Array(64 * 1024);
        const { bytesRead } = await file.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) {
          await file.close();
          return controller.close();
        }
        position += bytesRead;
        controller.enqueue(chunk.subarray(0, bytesRead));
      } catch (error) {
        await file.close().catch(() => {});
        controller.error(error);
      }
    },
    cancel: () => file.close(),
  });
}

function sizeError(key: string, size: number): MediaGenError {
  return new MediaGenError(`FileMediaStore.put: the body of "${key}" is not the ${size} bytes its info says.`, {
    code: 'STORAGE_ERROR',
    next: ERROR_CODES.STORAGE_ERROR.next,
  });
}

function codeOf(error: unknown): string {
  return (error as { code?: unknown })?.code === undefined ? 'unknown' : String((error as { code: unknown }).code);
}

function refusal(code: ErrorCode, message: string): Response {
  const { status, next } = ERROR_CODES[code];
  return Response.json({ error: code, message, next, request_id: null }, { status, headers: { 'cache-control': 'no-store' } });
}

function storeError(message: string, cause: unknown): MediaGenError {
  const missing = codeOf(cause) === 'ENOENT';
  return new MediaGenError(message, { code: 'STORAGE_ERROR', retryable: !missing, next: ERROR_CODES.STORAGE_ERROR.next, cause });
}
