import { ConfigurationError, MediaGenError } from '@mediagen/core';
import type { DirectUpload, MediaStore } from '@mediagen/core/server';
import { afterAll, describe, expect, it } from 'vitest';

export interface MediaStoreTarget {
  /** Shown in the test names. */
  name: string;
  /**
   * A new store over its own empty namespace (a prefix, a folder), for one test. `now`, when given,
   * is the store's clock (what its links are signed with, and its requests); whatever checks a link
   * keeps the real time.
   */
  create(options?: { now?: () => number }): Promise<MediaStore> | MediaStore;
  /** Fetches a link as the service (or a browser) would: default the global `fetch`. */
  fetch?: typeof fetch;
  /** Whether links serve `X-Content-Type-Options: nosniff` (S3 cannot; an app-served link must). */
  nosniff: boolean;
  /** Called once after every test ran. */
  close?(): Promise<void> | void;
}

const encoder = new TextEncoder();
const HOUR = 60 * 60 * 1000;
/** An hour from now: how long the links under test last. */
const soon = () => new Date(Date.now() + HOUR);

/** A stream of `bytes` in chunks of `chunk` bytes, ending with an error when `failAfter` bytes were read. */
export function streamOf(bytes: Uint8Array, options: { chunk?: number; failAfter?: number } = {}): ReadableStream<Uint8Array> {
  const chunk = options.chunk ?? 64 * 1024;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (options.failAfter !== undefined && offset >= options.failAfter) return controller.error(new Error('the upload broke off'));
      if (offset >= bytes.length) return controller.close();
      const end = Math.min(offset + chunk, bytes.length, options.failAfter ?? Number.POSITIVE_INFINITY);
      controller.enqueue(bytes.slice(offset, end));
      offset = end;
    },
  });
}

/** `n` bytes that differ from one run (and one call) to the next. */
export function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

/** A digest of `bytes` to compare by (vitest's deep equality walks a typed array element by element: minutes for megabytes). */
export async function digest(bytes: Uint8Array<ArrayBuffer> | ArrayBuffer): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `${bytes.byteLength}:${[...hash].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

let serial = 0;
const key = (name = 'input') => `inputs/${Date.now().toString(36)}-${++serial}-${name}`;

/**
 * The behaviour core relies on from every `MediaStore` (the filesystem store, `@mediagen/s3`): one
 * line per store package, `describeMediaStoreConformance({ name, create, nosniff })`, in its own test file.
 */
export function describeMediaStoreConformance(target: MediaStoreTarget): void {
  const get = (url: string, init?: RequestInit) => (target.fetch ?? fetch)(url, init);
  const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());
  const expectBytes = async (response: Response, bytes: Uint8Array<ArrayBuffer>) =>
    expect(await digest(await response.arrayBuffer())).toBe(await digest(bytes));
  /** Whether `url` serves nothing (a refusal or not found), never partial bytes. */
  const expectNothing = async (url: string) => {
    const response = await get(url);
    await response.arrayBuffer();
    expect(response.status).toBeGreaterThanOrEqual(400);
  };

  describe(`MediaStore conformance: ${target.name}`, () => {
    afterAll(async () => {
      await target.close?.();
    });

    it('put with a known size, then link: the bytes, the stored type, as an attachment', async () => {
      const store = await target.create();
      const bytes = randomBytes(300_000);
      const k = key('a.png');
      await store.put(k, streamOf(bytes), { contentType: 'image/png', size: bytes.length });
      const response = await get(await store.link(k, { expiresAt: soon() }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('content-disposition') ?? '').toMatch(/^attachment/);
      if (target.nosniff) expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      await expectBytes(response, bytes);
    });

    it('put of an unknown size (many small chunks), and of an empty body', async () => {
      const store = await target.create();
      const bytes = randomBytes(1_000_003);
      const k = key('b.mp4');
      await store.put(k, streamOf(bytes, { chunk: 4099 }), { contentType: 'video/mp4' });
      const response = await get(await store.link(k, { expiresAt: soon() }));
      expect(response.headers.get('content-type')).toBe('video/mp4');
      await expectBytes(response, bytes);

      const empty = key('empty.wav');
      await store.put(empty, streamOf(new Uint8Array(0)), { contentType: 'audio/wav' });
      expect((await bytesOf(await get(await store.link(empty, { expiresAt: soon() })))).length).toBe(0);
    });

    it('keys are used as given: odd characters round-trip, and each key is its own object', async () => {
      const store = await target.create();
      const keys = [key('a b+c=d&e;f,g:h@i$j!k(l)m*n~o.png'), key('ümlaut/日本語 %20.png'), key('x/y/z')];
      for (const [i, k] of keys.entries()) {
        const bytes = encoder.encode(`object ${i}`);
        await store.put(k, streamOf(bytes), { contentType: 'image/png', size: bytes.length });
      }
      for (const [i, k] of keys.entries()) {
        const response = await get(await store.link(k, { expiresAt: soon() }));
        expect(new TextDecoder().decode(await bytesOf(response))).toBe(`object ${i}`);
      }
    });

    it('put replaces what a key held', async () => {
      const store = await target.create();
      const k = key();
      await store.put(k, streamOf(encoder.encode('first')), { contentType: 'image/png', size: 5 });
      await store.put(k, streamOf(encoder.encode('second!')), { contentType: 'image/jpeg', size: 7 });
      const response = await get(await store.link(k, { expiresAt: soon() }));
      expect(response.headers.get('content-type')).toBe('image/jpeg');
      expect(new TextDecoder().decode(await bytesOf(response))).toBe('second!');
    });

    it('a body that breaks off (known size or not) rejects with a MediaGenError and keeps nothing under the key', async () => {
      const store = await target.create();
      const bytes = randomBytes(400_000);
      for (const size of [bytes.length, undefined]) {
        const k = key();
        const put = store.put(k, streamOf(bytes, { failAfter: 200_000 }), { contentType: 'image/png', size });
        await expect(put).rejects.toBeInstanceOf(MediaGenError);
        await expectNothing(await store.link(k, { expiresAt: soon() }));
      }
    });

    it('a failed replacement never leaves half an object: the key serves the old bytes or nothing', async () => {
      const store = await target.create();
      const k = key();
      const old = encoder.encode('the old object');
      await store.put(k, streamOf(old), { contentType: 'image/png', size: old.length });
      const put = store.put(k, streamOf(randomBytes(300_000), { failAfter: 100_000 }), { contentType: 'image/png', size: 300_000 });
      await expect(put).rejects.toBeInstanceOf(MediaGenError);
      const response = await get(await store.link(k, { expiresAt: soon() }));
      if (response.ok) await expectBytes(response, old);
      else expect(response.status).toBeGreaterThanOrEqual(400);
    });

    it('a body longer or shorter than info.size is refused, and nothing is kept', async () => {
      const store = await target.create();
      const bytes = randomBytes(10_000);
      for (const size of [bytes.length - 1, bytes.length + 1]) {
        const k = key();
        await expect(store.put(k, streamOf(bytes), { contentType: 'image/png', size })).rejects.toBeInstanceOf(MediaGenError);
        await expectNothing(await store.link(k, { expiresAt: soon() }));
      }
    });

    it('move: the bytes and type under the new key, nothing left under the old; a missing source rejects', async () => {
      const store = await target.create();
      const bytes = randomBytes(50_000);
      const [from, to] = [key('from'), key('to')];
      await store.put(from, streamOf(bytes), { contentType: 'audio/mpeg', size: bytes.length });
      await store.move(from, to);
      const response = await get(await store.link(to, { expiresAt: soon() }));
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
      await expectBytes(response, bytes);
      await expectNothing(await store.link(from, { expiresAt: soon() }));
      await expect(store.move(key('missing'), key())).rejects.toBeInstanceOf(MediaGenError);
    });

    it('delete removes the object; deleting a missing key is no error', async () => {
      const store = await target.create();
      const k = key();
      await store.put(k, streamOf(encoder.encode('x')), { contentType: 'image/png', size: 1 });
      await store.delete(k);
      await expectNothing(await store.link(k, { expiresAt: soon() }));
      await store.delete(k);
      await store.delete(key('never-there'));
    });

    it('a link works until its expiry and is refused after (an expiry in the past, never by waiting)', async () => {
      const store = await target.create();
      const k = key();
      await store.put(k, streamOf(encoder.encode('timely')), { contentType: 'image/png', size: 6 });
      await expectNothing(await store.link(k, { expiresAt: new Date(Date.now() - HOUR) }));
      const live = await get(await store.link(k, { expiresAt: new Date(Date.now() + 3 * HOUR) }));
      expect(live.status).toBe(200);
      expect(new TextDecoder().decode(await bytesOf(live))).toBe('timely');
    });

    it('the same key and expiry give the same link whenever it is asked (a recorded submit is resent unchanged)', async () => {
      let offset = 0;
      const store = await target.create({ now: () => Date.now() + offset });
      const k = key();
      await store.put(k, streamOf(encoder.encode('same')), { contentType: 'image/png', size: 4 });
      const expiresAt = new Date(Date.now() + 2 * HOUR);
      const first = await store.link(k, { expiresAt });
      offset = 37 * 60 * 1000 + 123;
      expect(await store.link(k, { expiresAt: new Date(expiresAt.getTime()) })).toBe(first);
      expect(await store.link(k, { expiresAt: new Date(expiresAt.getTime() + 60_000) })).not.toBe(first);
      expect((await get(first)).status).toBe(200);
    });

    it('a tampered link is refused: its last character changed, or its key swapped for another', async () => {
      const store = await target.create();
      const [a, b] = [key('a'), key('b')];
      for (const k of [a, b]) await store.put(k, streamOf(encoder.encode(k)), { contentType: 'image/png', size: encoder.encode(k).length });
      const link = await store.link(a, { expiresAt: soon() });
      const last = link.at(-1) === '0' ? '1' : '0';
      await expectNothing(link.slice(0, -1) + last);
      const encodedA = a.split('/').map(encodeURIComponent).join('/');
      expect(link).toContain(encodedA);
      await expectNothing(link.replace(encodedA, b.split('/').map(encodeURIComponent).join('/')));
    });

    it('an expiry that is no date is refused with a ConfigurationError', async () => {
      const store = await target.create();
      await expect(store.link(key(), { expiresAt: new Date(Number.NaN) })).rejects.toBeInstanceOf(ConfigurationError);
      await expect(store.link(key(), { expiresAt: 5 as unknown as Date })).rejects.toBeInstanceOf(ConfigurationError);
    });

    it('directUpload (when the store has it): the right type and size are taken, any other is refused', async (context) => {
      const store = await target.create();
      if (!store.directUpload) return context.skip();
      const bytes = randomBytes(20_000);
      const send = (upload: DirectUpload, body: Uint8Array<ArrayBuffer>, contentType: string) => {
        if (upload.method === 'PUT')
          return get(upload.url, { method: 'PUT', headers: { ...upload.headers, 'content-type': contentType }, body });
        const form = new FormData();
        for (const [name, value] of Object.entries(upload.fields ?? {})) form.append(name, value);
        form.set('Content-Type', contentType);
        form.append('file', new Blob([body], { type: contentType }));
        return get(upload.url, { method: 'POST', headers: upload.headers, body: form });
      };
      const k = key();
      const upload = await store.directUpload(k, { expiresInMs: HOUR, contentType: 'image/webp', maxBytes: bytes.length });
      for (const [body, type] of [
        [bytes, 'text/html'],
        [randomBytes(bytes.length + 1), 'image/webp'],
        [bytes.subarray(1), 'image/webp'],
      ] as const) {
        const refused = await send(upload, body, type);
        await refused.arrayBuffer();
        expect(refused.status, `${type}, ${body.length} bytes`).toBeGreaterThanOrEqual(400);
      }
      await expectNothing(await store.link(k, { expiresAt: soon() }));
      const accepted = await send(upload, bytes, 'image/webp');
      await accepted.arrayBuffer();
      expect(accepted.ok).toBe(true);
      const response = await get(await store.link(k, { expiresAt: soon() }));
      expect(response.headers.get('content-type')).toBe('image/webp');
      await expectBytes(response, bytes);
    });
  });
}
