import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sniffMedia as sniff } from '@mediagen/core/wire';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../src/config.js';
import { createEmulator, type EmulatorConfig } from '../src/index.js';
import { thumbOf } from '../src/input-reader.js';
import { addressClass, fetchInput, InputError, type InputPolicy, type Lookup, linkProblem } from '../src/inputs.js';
import { encodeKeyFrame } from '../src/media/vp8.js';
import { sourceFrame } from '../src/media/webm.js';
import { readPng, readWebm } from './decode.js';
import { type Emu, emulator, KEY, proAccount } from './helpers.js';
import { fakeWebp, flatJpeg, rgbPng, tinyWav } from './media-fixtures.js';

type Rgb = [number, number, number];
const RED: Rgb = [220, 30, 40];
const BLUE: Rgb = [30, 60, 220];

const redPng = rgbPng(40, 30, () => RED);
const halvesPng = rgbPng(64, 32, (x) => (x < 32 ? RED : BLUE), true);
const halvesJpeg = flatJpeg(64, 32, (bx) => (bx < 4 ? RED : BLUE), { restart: 3 });

/** The input host: a real HTTP server on a free loopback port, with one behaviour per path. */
interface InputHost {
  url: string;
  /** Per path: bytes written before the emulator hung up, and whether the answer was finished. */
  sent: Map<string, { bytes: number; finished: boolean; closed: boolean }>;
  close(): Promise<void>;
}

async function inputHost(
  routes: Record<string, (req: IncomingMessage, res: ServerResponse, note: (n: number) => void) => void>,
): Promise<InputHost> {
  const sent: InputHost['sent'] = new Map();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const row = { bytes: 0, finished: false, closed: false };
    sent.set(path, row);
    res.on('finish', () => {
      row.finished = true;
    });
    res.on('close', () => {
      row.closed = true;
    });
    const route = routes[path];
    if (!route) {
      res.writeHead(404).end('not here');
      return;
    }
    route(req, res, (n) => {
      row.bytes += n;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const serve =
  (bytes: Buffer, type = 'application/octet-stream') =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
    res.end(bytes);
  };

const LIMIT = 256 * 1024;

/** Writes `total` bytes of PNG-looking data in 16 KB chunks, honouring back-pressure; stops when the peer hangs up. */
function flood(total: number, headers: Record<string, string | number> = {}) {
  return (_req: IncomingMessage, res: ServerResponse, note: (n: number) => void) => {
    res.writeHead(200, { 'content-type': 'image/png', ...headers });
    const piece = Buffer.alloc(16 * 1024, 0x41);
    redPng.copy(piece, 0, 0, 8);
    let left = total;
    const pump = (): void => {
      while (left > 0 && !res.destroyed) {
        const n = Math.min(piece.length, left);
        left -= n;
        note(n);
        if (!res.write(piece.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      if (left === 0) res.end();
    };
    pump();
  };
}

let host: InputHost;
let emu: Emu;

const routes: Parameters<typeof inputHost>[0] = {
  '/red.png': serve(redPng, 'image/png'),
  '/halves.png': serve(halvesPng, 'image/png'),
  '/halves.jpg': serve(halvesJpeg, 'image/jpeg'),
  '/progressive.jpg': serve(
    Buffer.concat([
      halvesJpeg.subarray(0, 2),
      Buffer.from(halvesJpeg.subarray(2)).map((b, i, a) => (a[i - 1] === 0xff && b === 0xc0 ? 0xc2 : b)),
    ]),
  ),
  '/photo.webp': serve(fakeWebp(), 'image/webp'),
  '/voice.wav': serve(tinyWav(), 'audio/wav'),
  '/notes.txt': serve(Buffer.from('just some text, not a picture\n'), 'text/plain'),
  '/cut.png': serve(redPng.subarray(0, redPng.length - 30), 'image/png'),
  '/busy': (_req, res) => res.writeHead(503).end(),
  // Never answers: the emulator must give up on its own.
  '/stall': () => {},
  // Headers and one byte, then nothing.
  '/drip': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.write(redPng.subarray(0, 1));
  },
  '/huge': flood(400 * LIMIT),
  '/declared-huge': (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(100 * LIMIT) });
    res.write(redPng.subarray(0, 8));
  },
  // Says 60 bytes, is a whole PNG: the emulator reads what was declared and finds it cut short.
  '/declared-short': (req) => {
    req.socket.write(`HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 60\r\nConnection: close\r\n\r\n`);
    req.socket.end(redPng);
  },
  // Says more than it sends, then hangs up.
  '/declared-long': (req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(redPng.length + 500) });
    res.write(redPng, () => req.socket.destroy());
  },
  '/redirect': (_req, res) => res.writeHead(302, { location: '/red.png' }).end(),
  '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
  '/to-metadata': (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
  '/to-private': (_req, res) => res.writeHead(307, { location: 'https://10.0.0.7/secret.png' }).end(),
  '/to-plain-http': (_req, res) => res.writeHead(301, { location: 'http://example.com/a.png' }).end(),
  '/to-file': (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
};

beforeAll(async () => {
  host = await inputHost(routes);
  emu = await emulator({
    timeScale: 0.001,
    allowLoopbackInputs: true,
    inputTimeoutMs: 400,
    inputMaxBytes: { image: LIMIT },
    accounts: [proAccount()],
  });
});
afterAll(async () => {
  await emu.close();
  await host.close();
});
beforeEach(async () => {
  expect((await emu.control('POST', '/reset')).status).toBe(200);
});

const inProcessConfig = () => ({ timeScale: 0.001, accounts: [proAccount()] }) as EmulatorConfig;

const balance = async (): Promise<number> => (await emu.control('GET', '/accounts/acct_pro')).body.balance;

/** Submits, waits for the terminal state (by polling, never by a clock) and returns the final body. */
async function run(body: Record<string, unknown>) {
  const r = await emu.submit(body);
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return (await emu.wait(r.body.generation_id)).body;
}

async function download(url: string): Promise<Buffer> {
  const r = await emu.fetchRaw(url);
  expect(r.status).toBe(200);
  return r.raw;
}

/** The colour of pixel (x, y) of an indexed PNG. */
const pixel = (png: ReturnType<typeof readPng>, x: number, y: number): Rgb => {
  const i = png.pixels[y * png.width + x] as number;
  return [png.palette[i * 3] as number, png.palette[i * 3 + 1] as number, png.palette[i * 3 + 2] as number];
};

/** The most frequent colour of an indexed PNG. */
function dominant(png: ReturnType<typeof readPng>): Rgb {
  const counts = new Map<number, number>();
  for (const i of png.pixels) counts.set(i, (counts.get(i) ?? 0) + 1);
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] as [number, number];
  return [png.palette[best * 3] as number, png.palette[best * 3 + 1] as number, png.palette[best * 3 + 2] as number];
}

const near = (a: Rgb, b: Rgb, tolerance: number) => a.every((v, i) => Math.abs(v - (b[i] as number)) <= tolerance);

/** Hostile links, by class: each must be refused whatever the setting (private) or without it (loopback). */
const octet = fc.integer({ min: 0, max: 255 });
const privateV4 = fc.oneof(
  fc.tuple(octet, octet, octet).map(([a, b, c]) => `10.${a}.${b}.${c}`),
  fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([a, b, c]) => `172.${a}.${b}.${c}`),
  fc.tuple(octet, octet).map(([a, b]) => `192.168.${a}.${b}`),
  fc.tuple(octet, octet).map(([a, b]) => `169.254.${a}.${b}`),
  fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([a, b, c]) => `100.${a}.${b}.${c}`),
  fc.tuple(octet, octet, octet).map(([a, b, c]) => `0.${a}.${b}.${c}`),
  fc.tuple(fc.integer({ min: 224, max: 255 }), octet, octet, octet).map(([a, b, c, d]) => `${a}.${b}.${c}.${d}`),
);
const privateHost = fc.oneof(
  privateV4,
  privateV4.map((ip) => `[::ffff:${ip}]`),
  fc.constantFrom('[fc00::1]', '[fd12:3456::9]', '[fe80::1]', '[::]', '[ff02::1]', '[64:ff9b::a00:1]', '[2002:a00:1::1]', '[fec0::1]'),
  // Spellings the URL parser turns into a private address.
  fc.constantFrom('0xa.0.0.1', '012.0.0.1', '167772161', '0xA9FEA9FE', '0', '0x0'),
);
const loopbackHost = fc.oneof(
  fc.tuple(octet, octet, octet).map(([a, b, c]) => `127.${a}.${b}.${c}`),
  fc.constantFrom('localhost', 'LOCALHOST', 'app.localhost', '[::1]', '[::ffff:127.0.0.1]', '2130706433', '0x7f.1', '127.1'),
);
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }).map((p) => (p === undefined ? '' : `:${p}`));
const path = fc.constantFrom('/', '/a.png', '/latest/meta-data/', '/x?y=1#z');
const scheme = fc.constantFrom('http', 'https');
const privateLink = fc.tuple(scheme, privateHost, port, path).map(([s, h, p, q]) => `${s}://${h}${p}${q}`);
const loopbackLink = fc.tuple(scheme, loopbackHost, port, path).map(([s, h, p, q]) => `${s}://${h}${p}${q}`);
const otherScheme = fc
  .tuple(
    fc.constantFrom(
      'http://example.com',
      'ftp://example.com',
      'file://',
      'gopher://example.com',
      'ws://example.com',
      'data:image/png;base64,',
    ),
    path,
  )
  .map(([a, b]) => `${a}${b}`);

describe('input links at submit: the rules a link itself shows', () => {
  it('refuses private, link-local and reserved hosts whatever the setting, and loopback without it (property)', () => {
    fc.assert(
      fc.property(privateLink, fc.boolean(), (link, allow) => {
        expect(linkProblem(link, allow)).not.toBeNull();
      }),
    );
    fc.assert(
      fc.property(loopbackLink, (link) => {
        expect(linkProblem(link, false)).not.toBeNull();
        // With the setting: loopback, over http or https.
        expect(linkProblem(link, true)).toBeNull();
      }),
    );
    fc.assert(
      fc.property(otherScheme, fc.boolean(), (link, allow) => {
        expect(linkProblem(link, allow)).not.toBeNull();
      }),
    );
    expect(linkProblem('https://cdn.example.com/a.png', false)).toBeNull();
    expect(linkProblem('https://93.184.215.14/a.png', false)).toBeNull();
    expect(addressClass('8.8.8.8')).toBe('public');
    expect(addressClass('2606:4700::1111')).toBe('public');
  });

  it('answers each hostile link 422 INVALID_BODY on its field, nothing billed (property, in process)', async () => {
    const inProcess = createEmulator({ config: inProcessConfig() });
    try {
      const post = (body: Record<string, unknown>) =>
        inProcess.fetch(`${inProcess.url}/api/v1/generate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(privateLink, loopbackLink, otherScheme),
          fc.constantFrom('input_image', 'reference_images'),
          async (link, field) => {
            const body =
              field === 'input_image'
                ? { model: 'image-upscale', input_image: link }
                : { model: 'image-pro', prompt: 'x', reference_images: ['https://cdn.example.com/a.png', link] };
            const r = await post(body);
            expect(r.status).toBe(422);
            expect(await r.json()).toMatchObject({ error: 'INVALID_BODY', details: { field } });
          },
        ),
        { numRuns: 60 },
      );
      expect((await inProcess.accounts.get('acct_pro')).balance).toBe(15000);
    } finally {
      await inProcess.close();
    }
  });

  it('takes loopback http links only with allowLoopbackInputs', async () => {
    const off = createEmulator({ config: inProcessConfig() });
    try {
      const r = await off.fetch(`${off.url}/api/v1/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-upscale', input_image: `${host.url}/red.png` }),
      });
      expect(r.status).toBe(422);
      const body = await r.json();
      expect(body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'input_image' } });
      expect(body.message).toMatch(/allowLoopbackInputs/);
    } finally {
      await off.close();
    }
    expect((await emu.submit({ model: 'image-upscale', input_image: `${host.url}/red.png` })).status).toBe(202);
  });

  it('validates the settings', () => {
    expect(resolveConfig({}).allowLoopbackInputs).toBe(false);
    expect(resolveConfig({}).inputMaxBytes).toEqual({ image: 20 * 1024 * 1024, video: 200 * 1024 * 1024, audio: 50 * 1024 * 1024 });
    expect(resolveConfig({}).inputTimeoutMs).toBe(10_000);
    expect(() => resolveConfig({ inputTimeoutMs: 0 })).toThrow(ConfigError);
    expect(() => resolveConfig({ inputMaxBytes: { picture: 1 } })).toThrow(/unknown key "picture"/);
    expect(() => resolveConfig({ allowLoopbackInputs: 'yes' })).toThrow(ConfigError);
  });
});

describe('outputs derive from the input', () => {
  it('image-upscale: the output is the input scaled (a solid red PNG gives a red image)', async () => {
    const done = await run({ model: 'image-upscale', input_image: `${host.url}/red.png` });
    expect(done.status).toBe('completed');
    const png = readPng(await download(done.output_url));
    expect([png.width, png.height]).toEqual([2048, 2048]);
    expect(dominant(png)).toEqual(RED);
    expect(pixel(png, 1024, 1024)).toEqual(RED);
  });

  it('image-upscale from a PNG with alpha and every row filter: left half red, right half blue, letterboxed', async () => {
    const done = await run({ model: 'image-upscale', input_image: `${host.url}/halves.png` });
    const png = readPng(await download(done.output_url));
    expect(near(pixel(png, 300, 1024), RED, 2)).toBe(true);
    expect(near(pixel(png, 1750, 1024), BLUE, 2)).toBe(true);
    // 2:1 input in a square: bars above and below, the picture whole.
    expect(pixel(png, 1024, 100)).not.toEqual(pixel(png, 1024, 1024));
  });

  it('image-fast image-to-image from a baseline JPEG: the picture, tinted, same halves', async () => {
    const done = await run({
      model: 'image-fast',
      prompt: 'restyle it',
      aspect_ratio: '16:9',
      input_image: `${host.url}/halves.jpg`,
      seed: 7,
    });
    expect(done.status).toBe('completed');
    const png = readPng(await download(done.output_url));
    const [lr, , lb] = pixel(png, 300, 384);
    const [rr, , rb] = pixel(png, 1000, 384);
    expect(lr).toBeGreaterThan(lb);
    expect(rb).toBeGreaterThan(rr);
  });

  it('a format the emulator does not decode (WebP, progressive JPEG) gets a pattern of its bytes in a striped frame', async () => {
    for (const file of ['photo.webp', 'progressive.jpg']) {
      const done = await run({ model: 'image-upscale', input_image: `${host.url}/${file}` });
      expect(done.status, file).toBe('completed');
      const png = readPng(await download(done.output_url));
      // The stripes alternate every edge width (82 px at 2048), dark first.
      expect(pixel(png, 0, 0)).toEqual([24, 24, 24]);
      expect(pixel(png, 90, 0)).toEqual([250, 204, 21]);
      expect(pixel(png, 170, 0)).toEqual([24, 24, 24]);
      expect(pixel(png, 2047, 1024)).not.toEqual(pixel(png, 1024, 1024));
    }
  });

  it('video-standard image-to-video: the first frame is the input picture', async () => {
    const done = await run({ model: 'video-standard', prompt: 'slow push in', input_image: `${host.url}/halves.png`, duration: 5 });
    expect(done.status).toBe('completed');
    const video = readWebm(await download(done.output_url));
    const thumb = await thumbOf('png', halvesPng);
    const cols = Math.ceil(video.width / 16);
    const rows = Math.ceil(video.height / 16);
    expect(Buffer.from(video.frames[0] as Buffer)).toEqual(
      Buffer.from(encodeKeyFrame(video.width, video.height, sourceFrame(thumb, cols, rows, 0))),
    );
    // The clip moves on from it.
    expect(Buffer.compare(video.frames[0] as Buffer, video.frames.at(-1) as Buffer)).not.toBe(0);
  });

  it("an input that is the caller's own generation id is read from the emulator's own output", async () => {
    const first = await run({ model: 'image-upscale', input_image: `${host.url}/red.png` });
    const second = await run({ model: 'image-upscale', input_image: first.generation_id, resolution: '4k' });
    expect(second.status).toBe('completed');
    const png = readPng(await download(second.output_url));
    expect(png.width).toBe(4096);
    expect(dominant(png)).toEqual(RED);
    // A text-to-image output as the input of image-to-image: the output takes its colours.
    const drawn = await run({ model: 'image-fast', prompt: 'a valley', seed: 3 });
    const restyled = await run({ model: 'image-upscale', input_image: drawn.generation_id });
    const source = readPng(await download(drawn.output_url));
    const derived = readPng(await download(restyled.output_url));
    expect(near(pixel(derived, 1024, 1024), pixel(source, 512, 512), 24)).toBe(true);
  });

  it('the same link with other bytes gives another output (the input is part of what the output depends on)', async () => {
    const a = await run({ model: 'image-upscale', input_image: `${host.url}/red.png` });
    const b = await run({ model: 'image-upscale', input_image: `${host.url}/halves.png` });
    expect(Buffer.compare(await download(a.output_url), await download(b.output_url))).not.toBe(0);
  });

  it('follows a redirect on loopback to the picture', async () => {
    const done = await run({ model: 'image-upscale', input_image: `${host.url}/redirect` });
    expect(done.status).toBe('completed');
    expect(dominant(readPng(await download(done.output_url)))).toEqual(RED);
  });
});

describe('inputs it cannot fetch or read: failed upstream_detail, refunded', () => {
  const cases: [string, RegExp, boolean][] = [
    ['notes.txt', /not a PNG, JPEG or WebP file/, false],
    ['voice.wav', /not a PNG, JPEG or WebP file \(it is wav\)/, false],
    ['cut.png', /cut short/, false],
    ['missing.png', /HTTP 404/, false],
    ['busy', /HTTP 503/, true],
    ['stall', /did not finish within 400 ms/, true],
    ['drip', /did not finish within 400 ms/, true],
    ['huge', /over the 262144-byte limit/, false],
    ['declared-huge', /is 26214400 bytes, over the 262144-byte limit/, false],
    ['declared-short', /cut short/, false],
    ['declared-long', /ended before the body was complete|download failed/, true],
    ['loop', /redirects more than 3 times/, false],
    ['to-metadata', /redirects to a link that names a private/, false],
    ['to-private', /redirects to a link that names a private/, false],
    ['to-plain-http', /redirects to a link that is not https/, false],
    ['to-file', /redirects to a link that is not https/, false],
  ];
  it.each(cases)('%s', async (file, message, retryable) => {
    const before = await balance();
    const done = await run({ model: 'image-upscale', input_image: `${host.url}/${file}` });
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ code: 'upstream_detail', retryable });
    expect(done.error.message).toMatch(/^The input input_image could not be used: /);
    expect(done.error.message).toMatch(message);
    expect(done.credits_used).toBe(0);
    expect(done.output_url).toBeNull();
    expect(await balance()).toBe(before);
    const ledger = (await emu.control('GET', '/accounts/acct_pro')).body.ledger as { type: string; generation_id: string }[];
    expect(ledger.filter((row) => row.generation_id === done.generation_id).map((row) => row.type)).toEqual(['reserve', 'refund']);
  });

  it('never reads past the limit: the flood is cut off well before it is all sent', async () => {
    await run({ model: 'image-upscale', input_image: `${host.url}/huge` });
    const row = host.sent.get('/huge');
    expect(row?.finished).toBe(false);
    expect(row?.closed).toBe(true);
    // What was written is the limit plus what the two kernels' socket buffers hold, not the 100 MB.
    expect(row?.bytes).toBeLessThan(400 * LIMIT);
  });

  it('a reference image that fails fails the generation, naming it', async () => {
    const done = await run({ model: 'image-pro', prompt: 'x', reference_images: [`${host.url}/red.png`, `${host.url}/notes.txt`] });
    expect(done.status).toBe('failed');
    expect(done.error.message).toMatch(/^The input reference_images\[1\] could not be used/);
  });

  it('an audio input must be audio; a WAV is', async () => {
    expect((await run({ model: 'audio-voice', prompt: 'say hi', input_audio: `${host.url}/voice.wav` })).status).toBe('completed');
    const done = await run({ model: 'audio-voice', prompt: 'say hi', input_audio: `${host.url}/red.png` });
    expect(done.error).toMatchObject({ code: 'upstream_detail', retryable: false });
    expect(done.error.message).toMatch(/not a WAV or MP3 file \(it is png\)/);
  });

  it('input failure wins over the prompt markers: the render never ran', async () => {
    const done = await run({ model: 'image-fast', prompt: 'x [[flag]]', input_image: `${host.url}/notes.txt` });
    expect(done.error.code).toBe('upstream_detail');
    expect(done.credits_used).toBe(0);
  });
});

describe('fetchInput: names resolved, each hop checked (fake name resolution)', () => {
  const policy = (addresses: string[], allowLoopback = false): InputPolicy => ({
    allowLoopback,
    timeoutMs: 2000,
    maxBytes: { image: LIMIT, video: LIMIT, audio: LIMIT },
    lookup: ((_host: string, _opts: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) =>
      cb(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      )) as unknown as Lookup,
  });

  it('refuses a public name that resolves to a private, loopback or mixed set of addresses, before connecting', async () => {
    for (const addresses of [
      ['10.1.2.3'],
      ['169.254.169.254'],
      ['127.0.0.1'],
      ['93.184.215.14', '192.168.1.1'],
      ['fd00::1'],
      ['::ffff:10.0.0.1'],
    ]) {
      const e = await fetchInput('https://cdn.example.com/a.png', 'image', policy(addresses)).catch((x: unknown) => x);
      expect(e, addresses.join()).toBeInstanceOf(InputError);
      expect((e as InputError).message).toMatch(/resolves to .* address the service does not fetch/);
      expect((e as InputError).retryable).toBe(false);
    }
  });

  it('with the setting, names may resolve to loopback (never to a private range), and localhost must', async () => {
    const e = await fetchInput('https://cdn.example.com/a.png', 'image', policy(['127.0.0.1'], true)).catch((x: unknown) => x);
    // Allowed: it connects (nothing listens on 127.0.0.1:443 here).
    expect((e as InputError).message).toMatch(/download failed \(ECONNREFUSED\)/);
    const p = await fetchInput('https://cdn.example.com/a.png', 'image', policy(['10.0.0.1'], true)).catch((x: unknown) => x);
    expect((p as InputError).message).toMatch(/resolves to 10\.0\.0\.1/);
    // `localhost` resolving to a public address is refused too (it must be loopback).
    const port = new URL(host.url).port;
    const f = await fetchInput(`http://localhost:${port}/red.png`, 'image', policy(['93.184.215.14'], true)).catch((x: unknown) => x);
    expect((f as InputError).message).toMatch(/resolves to 93\.184\.215\.14/);
    const ok = await fetchInput(`http://localhost:${port}/red.png`, 'image', policy(['127.0.0.1'], true));
    expect(ok.bytes).toEqual(redPng);
  });
});

describe('sniff', () => {
  it('reads the kinds the service takes from their magic numbers', () => {
    expect(sniff(redPng)).toBe('png');
    expect(sniff(halvesJpeg)).toBe('jpeg');
    expect(sniff(fakeWebp())).toBe('webp');
    expect(sniff(tinyWav())).toBe('wav');
    expect(sniff(Buffer.from('ID3\x04\x00'))).toBe('mp3');
    expect(sniff(Buffer.from([0xff, 0xfb, 0x90, 0x00]))).toBe('mp3');
    expect(sniff(Buffer.from('\x00\x00\x00\x18ftypmp42', 'latin1'))).toBe('mp4');
    expect(sniff(readWebmHead())).toBe('webm');
    expect(sniff(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniff(Buffer.from('GIF89a'))).toBeNull();
    expect(sniff(Buffer.alloc(0))).toBeNull();
  });
});

function readWebmHead(): Buffer {
  // The EBML header the emulator's own WebM outputs start with.
  return Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x01, 0, 0, 0, 0, 0, 0, 0x1f, 0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6d]);
}
