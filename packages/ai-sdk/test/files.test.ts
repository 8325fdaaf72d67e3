/**
 * File data (bytes, base64) as an input image, stored where the service can fetch it: the
 * provider's `inputs` (`mediaInputs({ store })`) puts it in a FileMediaStore served by a
 * node:http server, and the real emulator (allowLoopbackInputs) fetches it when the generation starts.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APICallError, UnsupportedFunctionalityError } from '@ai-sdk/provider';
import { FileMediaStore, sendWebResponse, toWebRequest } from '@mediagen/core/node';
import { mediaInputs } from '@mediagen/core/server';
import { startEmulator } from '@mediagen/emulator';
import { generateImage, experimental_generateVideo as generateVideo } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaGen, type MediaGenProvider } from '../src/index.js';

const KEY = 'svc_live_aisdk_files';
/** A valid 1x1 PNG (red). */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082',
  'hex',
);
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let server: Server;
let directory: string;
let mediagen: MediaGenProvider;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    allowLoopbackInputs: true,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_aisdk_files', tier: 'pro', balance: 50_000, keys: [{ key: KEY }] }] },
  });
  directory = await mkdtemp(join(tmpdir(), 'mediagen-aisdk-files-'));
  let store: FileMediaStore | undefined;
  server = createServer((req, res) => {
    const key = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/uploads\//, ''));
    void store?.respond(key, toWebRequest(req)).then((response) => sendWebResponse(res, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  store = new FileMediaStore({ directory, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/uploads` });
  mediagen = createMediaGen({ apiKey: KEY, baseUrl: emulator.url, inputs: mediaInputs({ store }) });
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await emulator?.close();
  await rm(directory, { recursive: true, force: true });
});
const stored = async () => (await readdir(directory)).filter((name) => name.startsWith('k-'));

describe('file data as an input image', () => {
  it('generateImage with bytes, then with the same bytes as base64: completed, one stored object, no data URI sent', async () => {
    const bytes = await generateImage({ model: mediagen.image('image-upscale'), prompt: { images: [new Uint8Array(PNG)] } });
    expect(bytes.images).toHaveLength(1);
    expect(bytes.providerMetadata.mediagen).toBeDefined();
    const base64 = await generateImage({ model: mediagen.image('image-upscale'), prompt: { images: [PNG.toString('base64')] } });
    expect(base64.images).toHaveLength(1);
    expect(await stored()).toEqual([expect.stringMatching(/^k-[0-9a-f]{64}\.png$/)]);
  });

  it('the video model’s image input (the first frame) from bytes', async () => {
    const result = await generateVideo({
      model: mediagen.video('video-standard'),
      prompt: { image: new Uint8Array(PNG), text: 'the photo, moving' },
    });
    expect(result.videos).toHaveLength(1);
  });

  it('a file the service would not take is an APICallError naming the field; without `inputs`, UnsupportedFunctionalityError naming it', async () => {
    const text = await generateImage({
      model: mediagen.image('image-upscale'),
      prompt: { images: [new TextEncoder().encode('plain text, not an image')] },
    }).catch((e: unknown) => e);
    expect(APICallError.isInstance(text) || (text as Error).message.includes('input_image')).toBe(true);
    expect((text as Error).message).toContain('`input_image`');
    const bare = createMediaGen({ apiKey: KEY, baseUrl: emulator.url });
    const refused = await generateImage({ model: bare.image('image-upscale'), prompt: { images: [new Uint8Array(PNG)] } }).catch(
      (e: unknown) => e,
    );
    expect(UnsupportedFunctionalityError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain('createMediaGen({ inputs: mediaInputs({ store }) })');
    // URLs need no store.
    expect(() => createMediaGen({ inputs: 'store' as never })).toThrow(/inputs must be a function/);
  });
});
