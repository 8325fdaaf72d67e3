import { inspect } from 'node:util';
import { digest, randomBytes, streamOf } from '@mediagen/conformance';
import { ConfigurationError, MediaGenError } from '@mediagen/core';
import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { S3MediaStore, type S3MediaStoreOptions, S3StoreError } from '../src';

const s3 = inject('s3');
const MiB = 1024 * 1024;
const HOUR = 3_600_000;
let run = 0;
const prefix = () => `store-${Date.now().toString(36)}-${++run}/`;

/** The real fetch, with each request's method and query noted (to see the multipart calls made). */
function observed(): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fetch: (input, init) => {
      const url = new URL(String(input));
      calls.push(`${init?.method ?? 'GET'} ${[...url.searchParams.keys()].join('&')}`.trim());
      return fetch(input, init);
    },
  };
}

const store = (options: Partial<S3MediaStoreOptions> = {}) => new S3MediaStore({ ...s3, prefix: prefix(), ...options });

describe('S3MediaStore options', () => {
  it('refuses bad settings with a ConfigurationError that names the option', () => {
    const bad: [Partial<S3MediaStoreOptions>, RegExp][] = [
      [{ bucket: 'No_Such' }, /bucket/],
      [{ accessKeyId: '' }, /accessKeyId/],
      [{ secretAccessKey: '' }, /secretAccessKey/],
      [{ endpoint: 'not a url' }, /endpoint/],
      [{ endpoint: 'ftp://x.test' }, /endpoint/],
      [{ endpoint: 'https://user:pw@x.test' }, /endpoint/],
      [{ region: 'US East' }, /region/],
      [{ partSize: MiB }, /partSize/],
      [{ endpoint: undefined, bucket: 'with.dots', forcePathStyle: false }, /forcePathStyle/],
    ];
    for (const [options, message] of bad) {
      expect(() => new S3MediaStore({ ...s3, ...options } as S3MediaStoreOptions)).toThrow(ConfigurationError);
      expect(() => new S3MediaStore({ ...s3, ...options } as S3MediaStoreOptions)).toThrow(message);
    }
  });

  it('addresses R2, MinIO (path style) and AWS (virtual-hosted) as each expects', async () => {
    const keys = { accessKeyId: 'AKID', secretAccessKey: 'secret' };
    const r2 = new S3MediaStore({ ...keys, bucket: 'media', region: 'auto', endpoint: 'https://acct.r2.cloudflarestorage.com' });
    expect(await r2.link('a/b.png', { expiresAt: new Date(Date.now() + 1000) })).toMatch(
      /^https:\/\/acct\.r2\.cloudflarestorage\.com\/media\/a\/b\.png\?.*%2Fauto%2Fs3%2F/,
    );
    const minio = new S3MediaStore({ ...keys, bucket: 'media', endpoint: 'http://127.0.0.1:9000', prefix: 'app/' });
    expect(await minio.link('x', { expiresAt: new Date(Date.now() + 1000) })).toMatch(/^http:\/\/127\.0\.0\.1:9000\/media\/app\/x\?/);
    const aws = new S3MediaStore({ ...keys, bucket: 'media', region: 'eu-west-3' });
    const link = new URL(await aws.link('a b', { expiresAt: new Date(Date.now() + 1000) }));
    expect(link.origin + link.pathname).toBe('https://media.s3.eu-west-3.amazonaws.com/a%20b');
    expect(link.searchParams.get('response-content-disposition')).toBe('attachment');
  });

  it('refuses a link or upload longer than 7 days, and keys a URL would rewrite', async () => {
    const s = store();
    await expect(s.link('k', { expiresAt: new Date(Date.now() + 7 * 24 * HOUR + 2000) })).rejects.toThrow(/7 days/);
    expect(await s.link('k', { expiresAt: new Date(Date.now() + 7 * 24 * HOUR - 2000) })).toContain('X-Amz-Expires=604800');
    await expect(s.directUpload('k', { expiresInMs: 8 * 24 * HOUR, contentType: 'image/png', maxBytes: 10 })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    for (const key of ['', 'a/../b', './a', '/a', 'a\nb', 'x'.repeat(1025)])
      await expect(s.link(key, { expiresAt: new Date(Date.now() + 1000) })).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe('S3MediaStore put', () => {
  it('a known size is one PUT, streamed; an unknown size over one part is a multipart upload of bounded parts (3 here)', async () => {
    const seen = observed();
    const s = store({ fetch: seen.fetch, partSize: 5 * MiB });
    const small = randomBytes(1000);
    await s.put('known', streamOf(small), { contentType: 'image/png', size: small.length });
    expect(seen.calls).toEqual(['PUT']);

    seen.calls.length = 0;
    const big = randomBytes(11 * MiB);
    await s.put('unknown', streamOf(big, { chunk: 1_000_000 }), { contentType: 'video/mp4' });
    expect(seen.calls).toEqual([
      'POST uploads',
      'PUT partNumber&uploadId',
      'PUT partNumber&uploadId',
      'PUT partNumber&uploadId',
      'POST uploadId',
    ]);
    const response = await fetch(await s.link('unknown', { expiresAt: new Date(Date.now() + HOUR) }));
    expect(response.headers.get('content-type')).toBe('video/mp4');
    expect(await digest(await response.arrayBuffer())).toBe(await digest(big));

    // Under one part: one PUT of what was read, no multipart.
    seen.calls.length = 0;
    await s.put('unknown-small', streamOf(small), { contentType: 'image/png' });
    expect(seen.calls).toEqual(['PUT']);
  });

  it('a body failing after two parts aborts the multipart upload: nothing under the key', async () => {
    const seen = observed();
    const s = store({ fetch: seen.fetch, partSize: 5 * MiB });
    const put = s.put('broken', streamOf(randomBytes(12 * MiB), { failAfter: 11 * MiB }), { contentType: 'video/mp4' });
    await expect(put).rejects.toBeInstanceOf(MediaGenError);
    await expect(put).rejects.toThrow(/body stream failed/);
    expect(seen.calls).toEqual(['POST uploads', 'PUT partNumber&uploadId', 'PUT partNumber&uploadId', 'DELETE uploadId']);
    expect((await fetch(await s.link('broken', { expiresAt: new Date(Date.now() + HOUR) }))).status).toBe(404);
  });

  it('a failing known-size body says it was the body, not the bucket', async () => {
    const s = store();
    const put = s.put('cut', streamOf(randomBytes(300_000), { failAfter: 100_000 }), { contentType: 'image/png', size: 300_000 });
    await expect(put).rejects.toThrow(/body stream failed/);
    await expect(put).rejects.not.toBeInstanceOf(S3StoreError);
  });
});

describe('S3MediaStore against the bucket', () => {
  it('wrong credentials: an S3StoreError (STORAGE_ERROR, not retryable) with S3 code, never the secret', async () => {
    const s = store({ secretAccessKey: 'not-the-secret-at-all' });
    const error = await s.put('k', streamOf(new Uint8Array(3)), { contentType: 'image/png', size: 3 }).catch((e) => e);
    expect(error).toBeInstanceOf(S3StoreError);
    expect(error).toMatchObject({ code: 'STORAGE_ERROR', retryable: false, s3Status: 403, s3Code: 'SignatureDoesNotMatch' });
    expect(error.message).toContain('PUT of "k"');
    expect(inspect(error)).not.toContain('not-the-secret-at-all');
  });

  it('an unreachable bucket: a retryable S3StoreError', async () => {
    const s = store({ endpoint: 'http://127.0.0.1:1' });
    const error = await s.delete('k').catch((e) => e);
    expect(error).toMatchObject({ code: 'STORAGE_ERROR', retryable: true, s3Status: undefined });
  });

  it('CopyObject (of a move) failing inside a 200 answer is a failure (S3 does this; s3rver never does, so a fetch answers here)', async () => {
    const failing200: typeof fetch = async () =>
      new Response('<?xml version="1.0"?><Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>', {
        status: 200,
      });
    const s = store({ fetch: failing200 });
    await expect(s.move('a', 'b')).rejects.toMatchObject({ code: 'STORAGE_ERROR', s3Code: 'InternalError', retryable: true });
  });

  it('the bucket CORS lets the app origin PUT with Content-Type (preflight), and no other origin', async () => {
    const s = store();
    const url = new URL((await s.directUpload('cors', { expiresInMs: HOUR, contentType: 'image/png', maxBytes: 3 })).url);
    const preflight = (origin: string) =>
      fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
      });
    const ok = await preflight('http://app.test');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-methods')).toContain('PUT');
    expect((await preflight('http://evil.test')).status).toBe(403);
  });

  it('secrets never appear in any error, its string, JSON or inspection (property, over error paths)', async () => {
    const failures = (secret: string, token: string): (() => Promise<unknown>)[] => {
      const base = { ...s3, prefix: prefix(), secretAccessKey: secret, sessionToken: token };
      // A proxy or fetch that echoes what it was sent (URLs, headers) into its error or answer.
      const echoing: typeof fetch = async (input, init) => {
        throw new TypeError(`fetch failed for ${String(input)} with ${JSON.stringify(init?.headers)} ${secret}`);
      };
      const echoingAnswer: typeof fetch = async (input, init) =>
        new Response(
          `<Error><Code>AccessDenied</Code><Message>${token} ${secret} ${String(input)} ${JSON.stringify(init?.headers)}</Message></Error>`,
          { status: 403 },
        );
      return [
        () => new S3MediaStore(base).put('k', streamOf(new Uint8Array(2)), { contentType: 'image/png', size: 2 }),
        () => new S3MediaStore(base).move('missing', 'k'),
        () => new S3MediaStore({ ...base, fetch: echoing }).delete('k'),
        () => new S3MediaStore({ ...base, fetch: echoingAnswer }).put('k', streamOf(randomBytes(10)), { contentType: 'image/png' }),
        () =>
          new S3MediaStore({ ...base, fetch: echoingAnswer, partSize: 5 * MiB }).put('k', streamOf(randomBytes(6 * MiB)), {
            contentType: 'image/png',
          }),
        () => new S3MediaStore(base).link('k', { expiresAt: new Date(Date.now() + 30 * 24 * HOUR) }),
        async () => new S3MediaStore({ ...base, partSize: 3 }),
      ];
    };
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme-ascii', minLength: 12, maxLength: 40 }).filter((s) => s.trim().length >= 12),
        fc.base64String({ minLength: 16, maxLength: 64 }).filter((s) => s.length >= 16),
        fc.nat({ max: 6 }),
        async (secret, token, which) => {
          const error = await failures(secret, token)[which]!().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(MediaGenError);
          const views = [
            String(error),
            (error as Error).message,
            JSON.stringify(error),
            inspect(error, { depth: 5 }),
            String((error as Error).cause ?? ''),
          ];
          for (const view of views) {
            expect(view).not.toContain(secret);
            expect(view).not.toContain(token);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
