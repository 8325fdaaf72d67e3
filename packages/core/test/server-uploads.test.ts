import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaGenClient } from '../src/index';
import { createNodeHandler, FileMediaStore } from '../src/node';
import { createMediaGenHandler, type MediaGenHandler } from '../src/server';
import { inputTokens } from '../src/server/uploads/input-token';

/**
 * The upload route end to end: a person's file in through `POST /api/uploads`, the `input` token
 * in a submit, the emulator fetching the file from the app's own signed link when the generation
 * starts. And every way an attacker or a careless page would try it.
 */
const KEY = 'svc_live_uploads_test';
const SECRET = 'upload-secret-for-tests-0123456789';
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: MediaGenClient;
let server: Server;
let base: string;
let directory: string;
let handler: MediaGenHandler;

/** A valid 1x1 PNG (red). */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082',
  'hex',
);

function makeHandler(overrides: Partial<Parameters<typeof createMediaGenHandler>[0]['uploads']> = {}) {
  return createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    authorize: () => true,
    uploads: { store: new FileMediaStore({ directory, url: `${base}/api/uploads` }), secret: SECRET, ...overrides },
    onError: () => {},
  });
}

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    allowLoopbackInputs: true,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_uploads', tier: 'pro', balance: 15_000, keys: [{ key: KEY }] }] },
  });
  client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
  directory = await mkdtemp(join(tmpdir(), 'mediagen-uploads-'));
  // The handler is swapped per test (other bounds); each request goes to the current one.
  server = createServer((req, res) => void createNodeHandler(handler)(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handler = makeHandler();
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await emulator?.close();
  await rm(directory, { recursive: true, force: true });
});

const upload = (user: string | undefined, body: BodyInit | null, type: string | null = 'image/png', headers: Record<string, string> = {}) =>
  fetch(`${base}/api/uploads`, {
    method: 'POST',
    headers: { ...(user ? { 'x-user': user } : {}), ...(type ? { 'content-type': type } : {}), ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
const submit = (user: string, body: Record<string, unknown>, key?: string) =>
  fetch(`${base}/api/generations`, {
    method: 'POST',
    headers: { 'x-user': user, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
const files = async () => (await readdir(directory)).filter((name) => !name.startsWith('.link-key'));

describe('POST /api/uploads, then a submit with its input', () => {
  it('stores the file once under its digest, and the generation reads it from the app’s signed link', async () => {
    const first = await upload('ada', PNG);
    expect(first.status).toBe(201);
    const uploaded = (await first.json()) as { input: string; kind: string; type: string; size: number; expires_at: string };
    expect(uploaded).toMatchObject({ kind: 'image', type: 'image/png', size: PNG.length });
    expect(uploaded.input).toMatch(/^upload:[0-9a-f]{64}\.png\.\d{10}\.[0-9a-f]{32}$/);
    expect(Date.parse(uploaded.expires_at)).toBeGreaterThan(Date.now() + 5 * 24 * 3600_000);
    // The same bytes again (another user too): one object.
    expect((await upload('bob', PNG, 'application/octet-stream')).status).toBe(201);
    const sha = uploaded.input.slice(7, 71);
    expect(await files()).toEqual([`k-${sha}.png`]);

    const accepted = await submit('ada', { model: 'image-upscale', input_image: uploaded.input }, 'upscale-1');
    expect(accepted.status, await accepted.clone().text()).toBe(202);
    const { generation_id } = (await accepted.json()) as { generation_id: string };
    const done = await client.generations.wait(generation_id);
    expect(done.status).toBe('completed');
    // Sent again with the same key (a double click): the same link, so the same generation, billed once.
    const again = await submit('ada', { model: 'image-upscale', input_image: uploaded.input }, 'upscale-1');
    expect(again.status).toBe(202);
    expect(((await again.json()) as { generation_id: string }).generation_id).toBe(generation_id);
  });

  it('the link serves the sniffed type, nosniff, as an attachment; a tampered or expired one is refused', async () => {
    const store = new FileMediaStore({ directory, url: `${base}/api/uploads` });
    const { input } = (await (await upload('ada', PNG)).json()) as { input: string };
    const key = `${input.slice(7, 71)}.png`;
    const link = await store.link(key, { expiresAt: new Date(Date.now() + 3600_000) });
    expect(link.startsWith(`${base}/api/uploads/${key}?`)).toBe(true);
    const served = await fetch(link);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-disposition')).toBe('attachment');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    const tampered = await fetch(link.slice(0, -1) + (link.endsWith('0') ? '1' : '0'));
    expect([tampered.status, ((await tampered.json()) as { error: string }).error]).toEqual([403, 'LINK_INVALID']);
    const expired = await fetch(await store.link(key, { expiresAt: new Date(Date.now() - 1000) }));
    expect([expired.status, ((await expired.json()) as { error: string }).error]).toEqual([410, 'LINK_EXPIRED']);
    const traversal = await fetch(`${base}/api/uploads/..%2F..%2Fetc%2Fpasswd?expires=9999999999&signature=${'0'.repeat(64)}`);
    expect(traversal.status).toBe(403);
  });
});

describe('what an attacker or a careless page tries', () => {
  it('another user’s input, a forged one, one in the wrong field, or a stale one: 422 before anything is billed', async () => {
    const { input } = (await (await upload('ada', PNG)).json()) as { input: string };
    const balance = (await client.credits.get()).balance;
    const forged = input.slice(0, -1) + (input.endsWith('0') ? '1' : '0');
    const tokens = inputTokens(SECRET);
    const sha = input.slice(7, 71);
    const stale = await tokens.issue('ada', { sha256: sha, format: 'png', expires: Math.floor(Date.now() / 1000) + 3600 });
    const otherSecret = await inputTokens('another-secret-entirely-0123456789').issue('ada', {
      sha256: sha,
      format: 'png',
      expires: Math.floor(Date.now() / 1000) + 6 * 86400,
    });
    const cases: [string, Record<string, unknown>][] = [
      ['mallory', { model: 'image-upscale', input_image: input }],
      ['ada', { model: 'image-upscale', input_image: forged }],
      ['ada', { model: 'image-upscale', input_image: otherSecret }],
      ['ada', { model: 'image-upscale', input_image: stale }],
      ['ada', { model: 'video-standard', prompt: 'p', input_video: input }],
      ['ada', { model: 'audio-voice', prompt: 'p', input_audio: input }],
      ['mallory', { model: 'image-fast', prompt: 'p', reference_images: ['https://example.com/a.png', input] }],
    ];
    for (const [user, body] of cases) {
      const refused = await submit(user, body);
      const answer = (await refused.json()) as { error: string; details?: { field: string } };
      expect({ user, body, status: refused.status, error: answer.error }).toEqual({ user, body, status: 422, error: 'INVALID_BODY' });
      expect(Object.keys(body)).toContain(answer.details?.field);
    }
    expect((await client.credits.get()).balance).toBe(balance);
  });

  it('refuses what is not one of the service’s formats, whatever its type says: SVG, HTML, polyglots, empty', async () => {
    const head = (text: string) => Buffer.concat([PNG.subarray(0, 16), Buffer.from(text)]);
    for (const [body, type] of [
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/png'],
      [Buffer.from('<!doctype html><script>alert(1)</script>'), 'image/jpeg'],
      [head('<html><script>alert(document.cookie)</script>'), 'image/png'],
      [Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('<iframe src=//evil>')]), 'image/jpeg'],
      [Buffer.from('GIF89a..........'), 'image/gif'],
      [Buffer.alloc(0), 'image/png'],
    ] as const) {
      const refused = await upload('ada', body, type);
      expect({ type, status: refused.status, error: ((await refused.json()) as { error: string }).error }).toEqual({
        type,
        status: 415,
        error: 'MEDIA_NOT_ACCEPTED',
      });
    }
    expect((await files()).filter((f) => !/^k-[0-9a-f]{64}\.png$/.test(f))).toEqual([]);
  });

  it('refuses a page on another site: form, text or no media type (no preflight needed for those)', async () => {
    for (const type of [
      null,
      'text/plain',
      'text/plain;charset=UTF-8',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
    ]) {
      const refused = await upload('ada', PNG, type);
      expect({ type, status: refused.status }).toEqual({ type, status: 415 });
    }
    expect((await upload(undefined, PNG)).status).toBe(401);
  });

  it('413 past the kind’s limit or its own Content-Length, read no further; 408 for a stalled body; nothing kept', async () => {
    handler = makeHandler({ maxBytes: { image: 1000 }, idleTimeoutMs: 300 });
    try {
      const big = Buffer.concat([PNG, Buffer.alloc(5000)]);
      const over = await upload('ada', big);
      expect([over.status, ((await over.json()) as { error: string }).error]).toEqual([413, 'UPLOAD_TOO_LARGE']);
      // Declared larger than any limit: refused before a byte is read.
      const declared = await handler(
        new Request(`${base}/api/uploads`, {
          method: 'POST',
          headers: { 'x-user': 'ada', 'content-type': 'image/png', 'content-length': String(500 * 1024 * 1024) },
          body: new ReadableStream({ pull: () => new Promise(() => {}) }),
          duplex: 'half',
        } as RequestInit),
      );
      expect(declared.status).toBe(413);
      // A Content-Length that says less than is sent.
      const lying = await handler(
        new Request(`${base}/api/uploads`, {
          method: 'POST',
          headers: { 'x-user': 'ada', 'content-type': 'image/png', 'content-length': '60' },
          body: Buffer.concat([PNG, Buffer.alloc(400)]),
        }),
      );
      expect(lying.status).toBe(413);
      // The head, then nothing more, ever.
      let sent = false;
      const stalled = await upload(
        'ada',
        new ReadableStream({
          pull(controller) {
            if (sent) return new Promise(() => {});
            sent = true;
            controller.enqueue(new Uint8Array(Buffer.concat([PNG, Buffer.alloc(5000)])));
          },
        }),
      );
      expect(stalled.status).toBe(413);
      let once = false;
      const slow = await handler(
        new Request(`${base}/api/uploads`, {
          method: 'POST',
          headers: { 'x-user': 'ada', 'content-type': 'image/png' },
          body: new ReadableStream({
            pull(controller) {
              if (once) return new Promise(() => {});
              once = true;
              controller.enqueue(new Uint8Array(PNG.subarray(0, 40)));
            },
          }),
          duplex: 'half',
        } as RequestInit),
      );
      expect([slow.status, ((await slow.json()) as { error: string }).error]).toEqual([408, 'REQUEST_TIMEOUT']);
      expect((await files()).filter((f) => !/^k-[0-9a-f]{64}\.png$/.test(f))).toEqual([]);
    } finally {
      handler = makeHandler();
    }
  });

  it('rate-limits uploads per user (429 with Retry-After), not across users', async () => {
    handler = makeHandler({ perUserPerMinute: 2 });
    try {
      expect((await upload('rate-a', PNG)).status).toBe(201);
      expect((await upload('rate-a', PNG)).status).toBe(201);
      const limited = await upload('rate-a', PNG);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await upload('rate-b', PNG)).status).toBe(201);
    } finally {
      handler = makeHandler();
    }
  });

  it('tells the store the size a Content-Length declares (S3 then streams one PUT, no parts held), and none for a chunked body', async () => {
    const file = new FileMediaStore({ directory, url: `${base}/api/uploads` });
    const sizes: (number | undefined)[] = [];
    const store = {
      put: (key: string, body: ReadableStream<Uint8Array>, info: { contentType: string; size?: number }) => {
        sizes.push(info.size);
        return file.put(key, body, info);
      },
      move: (from: string, to: string) => file.move(from, to),
      link: (key: string, options: { expiresAt: Date }) => file.link(key, options),
      delete: (key: string) => file.delete(key),
    };
    const sized = createMediaGenHandler({
      client,
      identify: (request) => request.headers.get('x-user') ?? undefined,
      authorize: () => true,
      uploads: { store, secret: SECRET },
      onError: () => {},
    });
    const post = (body: BodyInit, headers: Record<string, string> = {}) =>
      sized(
        new Request('http://app.test/uploads', {
          method: 'POST',
          headers: { 'x-user': 'ada', 'content-type': 'image/png', ...headers },
          body,
          duplex: 'half',
        } as RequestInit),
      );
    expect((await post(PNG, { 'content-length': String(PNG.length) })).status).toBe(201);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(PNG));
        controller.close();
      },
    });
    expect((await post(chunked)).status).toBe(201);
    expect(sizes).toEqual([PNG.length, undefined]);
  });

  it('answers 404 on both routes when no store is configured', async () => {
    const bare = createMediaGenHandler({ client, allowAnonymous: true, onError: () => {} });
    expect(bare.route('POST', '/uploads')).toBeUndefined();
    const res = await bare(new Request('http://app.test/uploads', { method: 'POST', headers: { 'content-type': 'image/png' }, body: PNG }));
    expect(res.status).toBe(404);
    const token = await bare(
      new Request('http://app.test/generations', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-upscale', input_image: `upload:${'a'.repeat(64)}.png.1999999999.${'0'.repeat(32)}` }),
      }),
    );
    expect(token.status).toBe(422);
  });
});
