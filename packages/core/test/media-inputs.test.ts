import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError, isMediaGenError, MediaGenClient, MediaGenError } from '../src/index';
import { createNodeHandler, FileMediaStore, nodeMediaInputs } from '../src/node';
import { isFilePath } from '../src/node/node-media-inputs';
import { createMediaGenHandler, INPUT_LINK_SECONDS, type MediaStore, mediaInputs } from '../src/server';

/**
 * Files handed to the client in server-side code (`inputs: mediaInputs({ store })`): stored by
 * their digest in a FileMediaStore served from a node:http server, fetched by the real emulator
 * from the signed link when the generation starts.
 */
const KEY = 'svc_live_media_inputs_test';
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let server: Server;
let base: string;
let directory: string;
let store: FileMediaStore;

/** A valid 1x1 PNG (red); `png(n)` is another valid PNG (a trailing byte after IEND) of other bytes. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082',
  'hex',
);
const png = (n: number) => Buffer.concat([PNG, Buffer.from([n])]);
const WAV = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt '), Buffer.alloc(32)]);

const clientWith = (
  inputs?: MediaGenClient['generations'] extends never ? never : Parameters<typeof mediaInputs>[0] | 'node' | 'none',
  maxRetries = 0,
) =>
  new MediaGenClient({
    apiKey: KEY,
    baseUrl: emulator.url,
    maxRetries,
    ...(inputs === 'none' ? {} : { inputs: inputs === 'node' ? nodeMediaInputs({ store }) : mediaInputs(inputs ?? { store }) }),
  });
const files = async () => (await readdir(directory)).filter((name) => !name.startsWith('.'));

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    allowLoopbackInputs: true,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_inputs', tier: 'pro', balance: 50_000, keys: [{ key: KEY }] }] },
  });
  directory = await mkdtemp(join(tmpdir(), 'mediagen-inputs-'));
  server = createServer((req, res) => void createNodeHandler(handler)(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  store = new FileMediaStore({ directory, url: `${base}/api/uploads` });
  handler = createMediaGenHandler({
    client: clientWith('none'),
    basePath: '/api',
    authorize: () => true,
    uploads: { store, secret: 'media-inputs-secret-0123456789' },
    onError: () => {},
  });
});
let handler: ReturnType<typeof createMediaGenHandler>;
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await emulator?.close();
  await rm(directory, { recursive: true, force: true });
});
beforeEach(async () => {
  for (const name of await files()) await rm(join(directory, name));
});

describe('mediaInputs: files in input fields become the store’s links', () => {
  it('a Blob, a Buffer, an ArrayBuffer and a Web stream each make a completed generation; the same bytes are one object', async () => {
    const client = clientWith();
    const blob = await client.generations.run({ model: 'image-upscale', input_image: new Blob([PNG]) as never }, { intervalMs: 5 });
    expect(blob.status).toBe('completed');
    expect(await files()).toHaveLength(1);
    for (const value of [
      Buffer.from(PNG),
      PNG.buffer.slice(PNG.byteOffset, PNG.byteOffset + PNG.length),
      Readable.toWeb(Readable.from([PNG.subarray(0, 10), PNG.subarray(10)])),
    ]) {
      const done = await client.generations.run({ model: 'image-upscale', input_image: value as never }, { intervalMs: 5 });
      expect(done.status).toBe('completed');
    }
    // Four submits of the same bytes: one object, named by their digest.
    expect(await files()).toEqual([expect.stringMatching(/^k-[0-9a-f]{64}\.png$/)]);
  });

  it('replaces only files: strings pass unchanged; the link is the store’s, lasting about INPUT_LINK_SECONDS', async () => {
    const inputs = mediaInputs({ store });
    const id = '3f1c8a52-7d8e-4a7b-9c1e-2b6d4f0a9e11';
    const params = { model: 'image-pro', prompt: 'x', input_image: id, reference_images: ['https://example.com/a.png', png(1)] };
    const out = (await inputs(params as never)) as typeof params;
    expect(out.input_image).toBe(id);
    expect(out.reference_images[0]).toBe('https://example.com/a.png');
    const link = new URL(out.reference_images[1] as unknown as string);
    expect(link.href.startsWith(`${base}/api/uploads/`)).toBe(true);
    const expires = Number(link.searchParams.get('expires'));
    expect(expires).toBeLessThanOrEqual(Date.now() / 1000 + INPUT_LINK_SECONDS + 1);
    expect(expires).toBeGreaterThan(Date.now() / 1000 + INPUT_LINK_SECONDS - 3601);
    // The caller's params are not touched.
    expect(Buffer.isBuffer(params.reference_images[1])).toBe(true);
    // The same bytes again (another instance too, within the hour): the same link.
    expect((await mediaInputs({ store })({ reference_images: [new Blob([png(1)])] } as never)).reference_images).toEqual([link.href]);
    // Params with no files come back as they were.
    const plain = { model: 'image-fast', prompt: 'x' };
    expect(await inputs(plain as never)).toBe(plain);
  });

  it('one create retried after a lost answer sends the same body: replayed, one generation, one bill', async () => {
    await emulator.faults.add({ endpoint: 'generate', count: 1, status: 500, when: 'after' });
    const client = clientWith(undefined, 2);
    const before = (await emulator.accounts.get('acct_inputs')).ledger.filter((row) => row.type === 'reserve').length;
    const idempotencyKey = `media-inputs-${process.pid}`;
    const submitted = await client.generations.create(
      { model: 'image-upscale', input_image: new Blob([png(2)]) as never },
      { idempotencyKey },
    );
    expect(submitted.generation_id).toEqual(expect.any(String));
    const after = (await emulator.accounts.get('acct_inputs')).ledger.filter((row) => row.type === 'reserve').length;
    expect(after - before).toBe(1);
    // And a create sent again by the caller with the same key and the same bytes replays too (no 422).
    const again = await client.generations.create(
      { model: 'image-upscale', input_image: Buffer.from(png(2)) as never },
      { idempotencyKey },
    );
    expect(again.generation_id).toBe(submitted.generation_id);
    expect((await client.generations.wait(submitted.generation_id, { intervalMs: 5 })).status).toBe('completed');
  });

  it('refuses a file of the wrong kind, or over its limit, with a typed error naming the field; keeps nothing', async () => {
    const client = clientWith();
    const wrong = await client.generations.create({ model: 'image-upscale', input_image: WAV as never }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(MediaGenError);
    expect(wrong).toMatchObject({ code: 'MEDIA_NOT_ACCEPTED' });
    expect((wrong as Error).message).toMatch(/^`input_image`: The file is an audio \(wav\); an image is needed: PNG, JPEG or WebP\.$/);
    const svg = await mediaInputs({ store })({ input_image: new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>']) } as never).catch(
      (e: unknown) => e,
    );
    expect(svg).toMatchObject({ code: 'MEDIA_NOT_ACCEPTED' });
    const small = mediaInputs({ store, maxBytes: { image: 10_000 } });
    // A stream (no declared size) of 1 GB that would never end: cut at the limit, in bounded memory.
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(sent === 0 ? PNG : new Uint8Array(4096));
        sent += 1;
      },
    });
    const large = await small({ input_image: endless } as never).catch((e: unknown) => e);
    expect(large).toMatchObject({ code: 'UPLOAD_TOO_LARGE' });
    expect(sent).toBeLessThan(10);
    // A Blob whose size says it is over: refused before it is read.
    expect(await small({ input_image: new Blob([PNG, new Uint8Array(20_000)]) } as never).catch((e: unknown) => e)).toMatchObject({
      code: 'UPLOAD_TOO_LARGE',
    });
    expect(await files()).toEqual([]);
  });

  it('a value of another type is a ConfigurationError saying what is accepted', async () => {
    const inputs = mediaInputs({ store });
    for (const value of [{ url: 'https://x' }, 42, true]) {
      const error = await inputs({ input_image: value } as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toContain(
        'takes a URL, a generation id, a Blob, an ArrayBuffer, a Uint8Array or Buffer, or a ReadableStream of bytes',
      );
    }
    const chunks = await inputs({
      input_image: new ReadableStream({ start: (c) => (c.enqueue('text' as never), c.close()) }),
    } as never).catch((e: unknown) => e);
    expect(chunks).toMatchObject({ code: 'MEDIA_NOT_ACCEPTED' });
    expect(() => mediaInputs({} as never)).toThrow(ConfigurationError);
    expect(() => mediaInputs({ store: {} as MediaStore })).toThrow(/must be a MediaStore/);
  });

  it('without `inputs`, a file in an input field is a typed error that says what to configure', async () => {
    const error = await clientWith('none')
      .generations.create({ model: 'image-upscale', input_image: new Blob([PNG]) as never })
      .catch((e: unknown) => e);
    expect(isMediaGenError(error)).toBe(true);
    expect((error as Error).message).toMatch(/input_image/);
    expect((error as Error).message).toContain('input_image must be a URL, generation id or file with the inputs option');
  });
});

describe('nodeMediaInputs: file paths and Node streams too', () => {
  it('a path (absolute, ./relative, file: URL) and a Node stream make completed generations', async () => {
    const client = clientWith('node');
    const photo = join(directory, '..', `mediagen-photo-${process.pid}.png`);
    await writeFile(photo, png(3));
    try {
      for (const value of [photo, pathToFileURL(photo).href]) {
        const done = await client.generations.run({ model: 'image-upscale', input_image: value }, { intervalMs: 5 });
        expect(done.status).toBe('completed');
      }
      const { createReadStream } = await import('node:fs');
      const streamed = await client.generations.run(
        { model: 'image-upscale', input_image: createReadStream(photo) as never },
        { intervalMs: 5 },
      );
      expect(streamed.status).toBe('completed');
      expect(await files()).toHaveLength(1);
    } finally {
      await rm(photo, { force: true });
    }
  });

  it('reads a string as a path only when it says so: URLs and ids pass through, never touch the disk', async () => {
    for (const value of ['./a.png', '../a.png', '/a.png', '~/a.png', 'file:///a.png', '.\\a.png']) expect(isFilePath(value)).toBe(true);
    for (const value of [
      'https://example.com/a.png',
      'http://127.0.0.1/a',
      '3f1c8a52-7d8e-4a7b-9c1e-2b6d4f0a9e11',
      'a.png',
      'upload:abc',
      'C:photo',
      '.hidden',
      '~user',
    ])
      expect(isFilePath(value)).toBe(false);
    const out = await nodeMediaInputs({ store })({
      input_image: 'https://example.com/a.png',
      input_video: '3f1c8a52-7d8e-4a7b-9c1e-2b6d4f0a9e11',
    } as never);
    expect(out).toEqual({ input_image: 'https://example.com/a.png', input_video: '3f1c8a52-7d8e-4a7b-9c1e-2b6d4f0a9e11' });
  });

  it('a path that names no regular file is a typed error, never sent', async () => {
    const inputs = nodeMediaInputs({ store });
    const missing = await inputs({ input_image: './no-such-photo.png' } as never).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'INPUT_FILE_UNREADABLE' });
    expect((missing as Error).message).toBe('`input_image`: the file "./no-such-photo.png" does not exist.');
    for (const path of [directory, '/dev/zero'])
      expect(await inputs({ input_image: path } as never).catch((e: unknown) => e)).toMatchObject({ code: 'INPUT_FILE_UNREADABLE' });
    const control = await inputs({ input_image: './\u001b[31mred\u0007.png' } as never).catch((e: unknown) => e);
    expect([...(control as Error).message].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
  });
});
