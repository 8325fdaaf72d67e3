import { createHmac } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MediaGenClient } from '@mediagen/core';
import { FileMediaStore } from '@mediagen/core/node';
import type { MediaStore, UploadOptions } from '@mediagen/core/server';
import { expect, it } from 'vitest';

/** The suite's upload bounds: small, so a refusal needs few bytes; the stalls are forever, so no test races these timers. */
export const UPLOAD_IMAGE_LIMIT = 64 * 1024;
export const UPLOAD_IDLE_MS = 400;
export const UPLOADS_PER_MINUTE = 5;
export const UPLOAD_SECRET = 'route-conformance-upload-secret-0123456789';

/** A valid 1x1 PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082',
  'hex',
);

/**
 * The suite's `uploads` option: a `FileMediaStore` in a fresh folder, whose `url` (the app's
 * own origin + `/api/uploads`) is only known once the target has started the app. So the option
 * holds a store that forwards to the `FileMediaStore` made by `at(origin)`, called right after
 * `start`: the target mounts the option as an app would, with nothing of its own to add.
 */
export async function suiteUploads(): Promise<{
  options: UploadOptions;
  at(origin: string): FileMediaStore;
  directory: string;
  close(): Promise<void>;
}> {
  const directory = await mkdtemp(join(tmpdir(), 'mediagen-route-uploads-'));
  let inner: FileMediaStore | undefined;
  const store = (): FileMediaStore => {
    if (!inner) throw new Error('route conformance: the upload store is used before the app has started');
    return inner;
  };
  const forwarding: MediaStore = {
    put: (key, body, info) => store().put(key, body, info),
    move: (from, to) => store().move(from, to),
    link: (key, options) => store().link(key, options),
    delete: (key) => store().delete(key),
    respond: (key, request) => store().respond(key, request),
  };
  return {
    directory,
    options: {
      store: forwarding,
      secret: UPLOAD_SECRET,
      maxBytes: { image: UPLOAD_IMAGE_LIMIT },
      idleTimeoutMs: UPLOAD_IDLE_MS,
      perUserPerMinute: UPLOADS_PER_MINUTE,
    },
    at(origin) {
      inner = new FileMediaStore({ directory, url: `${origin}/api/uploads` });
      return inner;
    },
    close: () => rm(directory, { recursive: true, force: true }),
  };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * One HTTP/1.1 request written on a plain socket, as an attacker can (a `Content-Length` that
 * lies, a body that stops), and its first answer. With `stall`, the body is never finished:
 * the socket stays open and silent until the server answers.
 */
export function rawRequest(
  origin: string,
  head: string[],
  body: Buffer = Buffer.alloc(0),
  afterAnswer?: Buffer,
): Promise<RawAnswer | undefined> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    const answer = (): RawAnswer | undefined => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      let rest = received.subarray(end + 4);
      if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = [];
        for (;;) {
          const line = rest.indexOf('\r\n');
          if (line < 0) return undefined;
          const size = Number.parseInt(rest.subarray(0, line).toString('latin1'), 16);
          if (rest.length < line + 2 + size + 2) return undefined;
          if (size === 0) break;
          parts.push(rest.subarray(line + 2, line + 2 + size));
          rest = rest.subarray(line + 2 + size + 2);
        }
        rest = Buffer.concat(parts);
      } else {
        const length = Number(headers['content-length'] ?? 0);
        if (rest.length < length) return undefined;
        rest = rest.subarray(0, length);
      }
      return { status: Number(statusLine!.split(' ')[1]), headers, text: rest.toString('utf8') };
    };
    const finish = (error?: Error) => {
      if (afterAnswer && !error && answer()) socket.write(afterAnswer, () => {});
      socket.destroy();
      const parsed = answer();
      if (parsed || !error) resolve(parsed);
      else reject(error);
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (answer()) finish();
    });
    // The server may close (even reset) the connection once it has answered a refused body.
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish());
    socket.on('connect', () => {
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      if (body.length) socket.write(body, () => {});
    });
  });
}

export interface UploadSuiteContext {
  origin(): string;
  client(): MediaGenClient;
  store(): FileMediaStore;
  directory(): string;
  submitted: string[];
  userCookie(user: string): string;
}

type Json = Record<string, unknown> & { error?: string; details?: { field?: string }; input?: string; generation_id?: string };

/** The upload route's rules (`POST /api/uploads`, `GET /api/uploads/:key`), tried as an attacker would, on the target's mount. */
export function uploadCases(ctx: UploadSuiteContext): void {
  const uniqueUser = (name: string) => `${name}-${globalThis.crypto.randomUUID().slice(0, 8)}`;
  const upload = async (user: string | undefined, body: BodyInit, type: string | null = 'image/png') => {
    const headers: Record<string, string> = {};
    if (user) headers.cookie = ctx.userCookie(user);
    if (type) headers['content-type'] = type;
    const res = await fetch(`${ctx.origin()}/api/uploads`, { method: 'POST', headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Json | undefined };
  };
  const submit = async (user: string, params: Record<string, unknown>) => {
    const res = await fetch(`${ctx.origin()}/api/generations`, {
      method: 'POST',
      headers: { cookie: ctx.userCookie(user), 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const balance = async () => (await ctx.client().credits.get()).balance;
  const refusedWith = (res: { status: number; body?: Json | undefined }, status: number, code: string) =>
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error: code });
  const parsed = (raw: RawAnswer | undefined) => ({
    status: raw?.status ?? 0,
    body: raw?.text ? (JSON.parse(raw.text) as Json) : undefined,
  });
  const rawUpload = (user: string, headers: string[], body?: Buffer, afterAnswer?: Buffer) =>
    rawRequest(
      ctx.origin(),
      ['POST /api/uploads HTTP/1.1', `Host: ${new URL(ctx.origin()).host}`, `Cookie: ${ctx.userCookie(user)}`, ...headers],
      body,
      afterAnswer,
    );
  /** The stored objects (the link key and the writes in progress aside). */
  const objects = async () => (await readdir(ctx.directory())).filter((name) => name.startsWith('k-'));

  it('uploads: a file in (201 with its input), a submit with that input (202), the generation completes from the app’s own link', async () => {
    const user = uniqueUser('ada');
    const uploaded = await upload(user, PNG, 'image/png');
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ kind: 'image', type: 'image/png', size: PNG.length });
    expect(uploaded.body!.input).toMatch(/^upload:[0-9a-f]{64}\.png\.\d{10}\.[0-9a-f]{32}$/);
    const accepted = await submit(user, { model: 'image-upscale', input_image: uploaded.body!.input });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(ctx.submitted).toEqual([accepted.body.generation_id]);
    // The emulator fetches the input from the signed link the token resolved to: through this adapter's mount.
    const done = await ctx.client().generations.wait(accepted.body.generation_id!);
    expect(done.status).toBe('completed');
  });

  it('uploads: another user’s input, a forged one, a guessed one, or one signed with another secret: 422 INVALID_BODY, nothing billed', async () => {
    const owner = uniqueUser('ada');
    const { body } = await upload(owner, PNG);
    const input = body!.input!;
    const [, sha, format, expires] = /^upload:([0-9a-f]{64})\.(\w+)\.(\d+)\./.exec(input)!;
    const signed = (secret: string, user: string) =>
      `upload:${sha}.${format}.${expires}.${createHmac('sha256', secret)
        .update(`mediagen upload\n${user}\n${sha}.${format}.${expires}`)
        .digest('hex')
        .slice(0, 32)}`;
    expect(signed(UPLOAD_SECRET, owner)).toBe(input);
    const before = await balance();
    const mallory = uniqueUser('mallory');
    const attempts: [string, string, string][] = [
      ['another user’s input', mallory, input],
      ['a byte changed', owner, input.slice(0, -1) + (input.endsWith('0') ? '1' : '0')],
      ['a later expiry', owner, input.replace(/\.(\d{10})\./, (_, e: string) => `.${Number(e) + 1}.`)],
      ['a guessed signature', owner, `upload:${sha}.${format}.${expires}.${'0'.repeat(32)}`],
      ['another secret', owner, signed('an-attacker-secret-0123456789', owner)],
      ['signed for mallory by another secret', mallory, signed('an-attacker-secret-0123456789', mallory)],
    ];
    for (const [what, user, value] of attempts) {
      const res = await submit(user, { model: 'image-upscale', input_image: value });
      expect({ what, status: res.status, error: res.body.error, field: res.body.details?.field }).toEqual({
        what,
        status: 422,
        error: 'INVALID_BODY',
        field: 'input_image',
      });
    }
    expect(ctx.submitted).toEqual([]);
    expect(await balance()).toBe(before);
  });

  it('uploads: SVG, HTML and a PNG-headed polyglot are refused 415 MEDIA_NOT_ACCEPTED, whatever their type says; nothing kept', async () => {
    const user = uniqueUser('ada');
    const before = await objects();
    const polyglot = Buffer.concat([PNG.subarray(0, 33), Buffer.from('<html><script>alert(document.cookie)</script></html>')]);
    for (const [what, body, type] of [
      ['svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'image/svg+xml'],
      ['svg as png', Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/png'],
      ['html', Buffer.from('<!doctype html><script>alert(1)</script>'), 'text/html'],
      ['html as jpeg', Buffer.from('<!doctype html><script>alert(1)</script>'), 'image/jpeg'],
      ['png-headed polyglot', polyglot, 'image/png'],
    ] as const) {
      const res = await upload(user, body, type);
      expect({ what, status: res.status, error: res.body?.error }).toEqual({ what, status: 415, error: 'MEDIA_NOT_ACCEPTED' });
    }
    expect(await objects()).toEqual(before);
  });

  it('uploads: cross-site forms (text/plain, multipart, urlencoded, no type) are refused 415 MEDIA_NOT_ACCEPTED; no user 401', async () => {
    const user = uniqueUser('ada');
    const form = new FormData();
    form.set('file', new Blob([PNG], { type: 'image/png' }), 'a.png');
    for (const [what, body, type] of [
      ['text/plain', PNG, 'text/plain'],
      ['multipart/form-data', form, null],
      ['urlencoded', 'file=%89PNG', 'application/x-www-form-urlencoded'],
      ['no Content-Type', PNG, null],
    ] as const) {
      const res = await upload(user, body as BodyInit, type);
      expect({ what, status: res.status, error: res.body?.error }).toEqual({ what, status: 415, error: 'MEDIA_NOT_ACCEPTED' });
    }
    refusedWith(await upload(undefined, PNG), 401, 'USER_UNKNOWN');
  });

  it('uploads: a Content-Length over the limit, or a body that runs past it, is refused 413 UPLOAD_TOO_LARGE; a body longer than its Content-Length is cut there', async () => {
    const user = uniqueUser('ada');
    const before = await objects();
    const pngOf = (size: number) => Buffer.concat([PNG, Buffer.alloc(size - PNG.length, 7)]);
    // Declared over every kind's limit: refused on the head, before a byte of the body is read (none is ever sent).
    refusedWith(
      parsed(await rawUpload(user, ['Content-Type: image/png', `Content-Length: ${300 * 1024 * 1024}`])),
      413,
      'UPLOAD_TOO_LARGE',
    );
    // Declared over the image limit: refused once the first bytes say it is an image (the rest never comes).
    refusedWith(
      parsed(await rawUpload(user, ['Content-Type: image/png', `Content-Length: ${UPLOAD_IMAGE_LIMIT + 1}`], pngOf(8192))),
      413,
      'UPLOAD_TOO_LARGE',
    );
    // No Content-Length (chunked), and more than the limit sent: cut off as it passes it, the rest never read.
    const chunk = pngOf(UPLOAD_IMAGE_LIMIT + 4096);
    const chunked = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    refusedWith(parsed(await rawUpload(user, ['Content-Type: image/png', 'Transfer-Encoding: chunked'], chunked)), 413, 'UPLOAD_TOO_LARGE');
    // A Content-Length that says less than is sent (and the whole over the limit): HTTP's framing ends
    // the body at the declared length, so the upload is those bytes and no more, and the rest (sent
    // once that answer is in, so the server cannot drop the connection first) is never part of it.
    // A runtime that hands a handler a body longer than its Content-Length gets 413 (core's own test).
    const declared = 5000;
    const sent = pngOf(UPLOAD_IMAGE_LIMIT * 2);
    const lying = parsed(
      await rawUpload(
        user,
        ['Content-Type: image/png', `Content-Length: ${declared}`],
        sent.subarray(0, declared),
        sent.subarray(declared),
      ),
    );
    expect(lying.status).toBe(201);
    expect(lying.body).toMatchObject({ size: declared });
    const added = (await objects()).filter((name) => !before.includes(name));
    expect(added).toHaveLength(1);
    expect((await stat(join(ctx.directory(), added[0]!))).size).toBeLessThan(declared + 64);
  });

  it('uploads: a body that stalls (after its head, or after its first bytes) ends 408 REQUEST_TIMEOUT; nothing kept', async () => {
    const user = uniqueUser('ada');
    const before = await objects();
    // The stalls are forever: the only thing that can end them is the route's idle timeout.
    refusedWith(parsed(await rawUpload(user, ['Content-Type: image/png', 'Content-Length: 5000'])), 408, 'REQUEST_TIMEOUT');
    refusedWith(
      parsed(await rawUpload(user, ['Content-Type: image/png', 'Content-Length: 5000'], PNG.subarray(0, 40))),
      408,
      'REQUEST_TIMEOUT',
    );
    expect(await objects()).toEqual(before);
  });

  it('uploads: rate-limited per user: 429 RATE_LIMIT with Retry-After, another user still served', async () => {
    const user = uniqueUser('busy');
    for (let i = 0; i < UPLOADS_PER_MINUTE; i++) expect((await upload(user, PNG)).status).toBe(201);
    const limited = await upload(user, PNG);
    refusedWith(limited, 429, 'RATE_LIMIT');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await upload(uniqueUser('calm'), PNG)).status).toBe(201);
  });

  it('uploads: the signed link serves the bytes with the sniffed type, nosniff, as an attachment; a tampered link 403', async () => {
    const { body } = await upload(uniqueUser('ada'), PNG, 'application/octet-stream');
    const key = `${body!.input!.slice(7, 71)}.png`;
    const link = await ctx.store().link(key, { expiresAt: new Date(Date.now() + 3600_000) });
    expect(link.startsWith(`${ctx.origin()}/api/uploads/${key}?`)).toBe(true);
    const served = await fetch(link);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-disposition')).toBe('attachment');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    const tampered = await fetch(link.slice(0, -1) + (link.endsWith('0') ? '1' : '0'));
    expect([tampered.status, ((await tampered.json()) as Json).error]).toEqual([403, 'LINK_INVALID']);
    const otherKey = await fetch(link.replace(key, `${'0'.repeat(64)}.png`));
    expect(otherKey.status).toBe(403);
  });
}
