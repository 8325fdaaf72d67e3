import { ConfigurationError, RateLimitError } from '../../errors';
import type { GenerateParams } from '../../types';
import { ERROR_CODES } from '../../wire/error-codes';
import { INPUT_KINDS, INPUT_MAX_BYTES, type InputField, type InputKind, MEDIA_FORMATS, type UploadedInput } from '../../wire/media';

export type { UploadedInput };

import { uploadSecret } from '../configuration';
import type { MediaStore } from '../media-store';
import type { MediaGenHandlerOptions } from '../options';
import { noSuchRoute, routeError } from '../route-error';
import { type InputToken, inputTokens, objectKey, TOKEN_PREFIX } from './input-token';
import { article, receiveUpload } from './receive-upload';

/** The handler's `uploads` option: a person's own media, kept in the app's storage, as generation inputs. */
export interface UploadOptions {
  /** Where the files are kept: `FileMediaStore` (`@mediagen/core/node`), `S3MediaStore` (`@mediagen/s3`). */
  store: MediaStore;
  /**
   * Signs the `input` tokens the route hands out, which name the user who uploaded (so only they
   * can submit it) on every instance. Default: `MEDIAGEN_UPLOAD_SECRET`, else the webhook secret
   * (the emulator's in development). Changing it refuses the tokens handed out before.
   */
  secret?: string;
  /** Largest upload per kind, in bytes; default (and most) `INPUT_MAX_BYTES`: images 20 MB, video 200 MB, audio 50 MB. */
  maxBytes?: Partial<Record<InputKind, number>>;
  /** Uploads a user may start per minute, per instance. Default 30. */
  perUserPerMinute?: number;
  /** Longest wait for the next bytes of an upload. Default 30 000 ms; then 408. */
  idleTimeoutMs?: number;
  /** Longest a whole upload may take. Default 600 000 ms (10 min); then 408. */
  timeoutMs?: number;
}

/**
 * How long an input's link lasts from its upload: S3's longest presigned link, less a minute so
 * a bucket's link is signed at or before the upload (`S3MediaStore.link`).
 */
export const INPUT_LINK_SECONDS = 7 * 24 * 3600 - 60;
/**
 * A token is refused at submit once its link has less than a day left: the ledger resends an
 * unanswered intent with its recorded body (the link in it) every 5 minutes at most, so a day is
 * ample for it to land; past it, a resend the service sees for the first time would name a dead
 * link, and that generation would fail (unbilled: the service refunds a failed generation).
 */
export const INPUT_MIN_LIFE_SECONDS = 24 * 3600;

export interface Uploads {
  receive(request: Request, owner: string | undefined): Promise<UploadedInput>;
  /** The params with every upload token replaced by its link, each checked to be `owner`'s. */
  resolve(params: GenerateParams, owner: string | undefined): Promise<GenerateParams>;
  readonly store: MediaStore | undefined;
}

export function createUploads(options: MediaGenHandlerOptions<never>): Uploads {
  const config = options.uploads;
  const store = config?.store;
  const secret = uploadSecret(options);
  const tokens = secret ? inputTokens(secret) : undefined;
  const maxBytes = { ...INPUT_MAX_BYTES, ...config?.maxBytes };
  const bounds = { maxBytes, idleTimeoutMs: config?.idleTimeoutMs ?? 30_000, timeoutMs: config?.timeoutMs ?? 600_000 };
  const admit = perMinute(config?.perUserPerMinute ?? 30);
  const user = (owner: string | undefined) => owner ?? '';
  const configured = () => {
    if (!store) throw noSuchRoute('This app takes no uploads (no `uploads.store` is configured).');
    if (!tokens) throw new ConfigurationError('uploads: no secret to sign input tokens: set MEDIAGEN_UPLOAD_SECRET (or uploads.secret).');
    return { store, tokens };
  };

  async function resolveOne(field: InputField, value: string, owner: string): Promise<string> {
    if (!store) throw routeError('INVALID_BODY', `\`${field}\` is an upload, and this app takes none.`, { details: { field } });
    const { tokens } = configured();
    const token: InputToken | undefined = await tokens.read(owner, value);
    if (!token) throw routeError('INVALID_BODY', `\`${field}\` names no upload of yours.`, { details: { field } });
    const { kind } = MEDIA_FORMATS[token.format];
    if (kind !== INPUT_KINDS[field])
      throw routeError(
        'INVALID_BODY',
        `\`${field}\` takes ${article(INPUT_KINDS[field])} ${INPUT_KINDS[field]}; this upload is ${article(kind)} ${kind}.`,
        { details: { field } },
      );
    if (token.expires - Date.now() / 1000 < INPUT_MIN_LIFE_SECONDS)
      throw routeError('INVALID_BODY', `\`${field}\`'s upload has expired: upload the file again.`, { details: { field } });
    return store.link(objectKey(token), { expiresAt: new Date(token.expires * 1000) });
  }

  return {
    store,
    async receive(request, owner) {
      const { store, tokens } = configured();
      const wait = admit(user(owner));
      if (wait > 0) {
        throw new RateLimitError('Too many uploads: wait a minute.', {
          status: 429,
          code: 'RATE_LIMIT',
          next: ERROR_CODES.RATE_LIMIT.next,
          retryable: true,
          retryAfterMs: wait,
        });
      }
      const received = await receiveUpload(request, store, bounds);
      const expires = Math.floor(Date.now() / 1000) + INPUT_LINK_SECONDS;
      const { kind, type } = MEDIA_FORMATS[received.format];
      return {
        input: await tokens.issue(user(owner), { sha256: received.sha256, format: received.format, expires }),
        kind,
        type,
        size: received.size,
        expires_at: new Date((expires - INPUT_MIN_LIFE_SECONDS) * 1000).toISOString(),
      };
    },
    async resolve(params, owner) {
      let resolved = params;
      for (const field of Object.keys(INPUT_KINDS) as InputField[]) {
        const value = params[field];
        if (Array.isArray(value) ? !value.some(isToken) : !isToken(value)) continue;
        const one = (v: unknown) => (isToken(v) ? resolveOne(field, v, user(owner)) : v);
        resolved = { ...resolved, [field]: Array.isArray(value) ? await Promise.all(value.map(one)) : await one(value) };
      }
      return resolved;
    },
  };
}

const isToken = (value: unknown): value is string => typeof value === 'string' && value.startsWith(TOKEN_PREFIX);

/** Admits `limit` starts per user per minute (a fixed window); answers the wait in ms, 0 when admitted. */
function perMinute(limit: number): (user: string) => number {
  const windows = new Map<string, { start: number; count: number }>();
  return (user) => {
    const now = Date.now();
    let window = windows.get(user);
    if (!window || now - window.start >= 60_000) {
      // Bounded: the windows of users gone quiet are dropped once there are many.
      if (windows.size >= 10_000) for (const [key, w] of windows) if (now - w.start >= 60_000) windows.delete(key);
      if (windows.size >= 10_000) windows.delete(windows.keys().next().value as string);
      window = { start: now, count: 0 };
      windows.set(user, window);
    }
    if (window.count >= limit) return window.start + 60_000 - now;
    window.count++;
    return 0;
  };
}
