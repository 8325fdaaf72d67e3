import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '@mediagen/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawAnswer, type RawUpload, rawUpload } from './support/raw-upload';
import { freePort, SECRET, startStudio } from './support/stack';

const ROUTE = '/api/webhooks/mediagen';
const MiB = 1024 * 1024;
/** The receiver's default cap (core's `maxBodyBytes`), which the sample keeps. */
const CAP = MiB;
/** How long a test waits for an answer a correct receiver gives within its 4 s deadline: generous, for a loaded machine. */
const PATIENCE_MS = 20_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The answer, or `undefined` if none came within `ms` (the sender then goes on, so a late answer still shows). */
const answeredWithin = (upload: RawUpload, ms: number) => Promise.race([upload.answer, pause(ms).then(() => undefined)]);

/** `next-server`'s resident memory in bytes, from the kernel. */
function rss(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

const errorBody = (answer: RawAnswer) => JSON.parse(answer.body) as { error: string; request_id: unknown };

/**
 * Issue 19: under `next start`, a webhook body that trickles, stops short, is huge or stalls is
 * answered within the receiver's deadline and cap, as in core, Express and Nest. Each case
 * asserts what was answered and how much of the body had been sent when the answer came, never
 * how long it took: the sender holds back the end of the body until it is answered (or a
 * generous wait passes), so a receiver that waits for the whole body is caught by what it says.
 */
describe('the built studio bounds what its webhook route reads (next start, raw sockets)', () => {
  let studio: Awaited<ReturnType<typeof startStudio>>;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'next-sample-bounds-'));
    studio = await startStudio(
      {
        MEDIAGEN_API_KEY: 'svc_live_bounds_test',
        MEDIAGEN_BASE_URL: 'http://127.0.0.1:9',
        MEDIAGEN_WEBHOOK_SECRET: SECRET,
        MEDIAGEN_SAMPLE_DB: join(dir, 'generations.db'),
      },
      await freePort(),
    );
    // Loads the route module, so the memory measured later is the uploads', not the code's.
    const warm = rawUpload(studio.origin, ROUTE, { 'content-type': 'application/json', 'content-length': '2' });
    await warm.write('{}');
    expect((await warm.answer).status).toBe(401);
  });
  afterAll(async () => {
    await studio?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const signed = async (generationId: string) => {
    const payload = JSON.stringify({
      generation_id: generationId,
      status: 'completed',
      model: 'image-fast',
      output_url: 'https://cdn.example.com/out.png',
      output_urls: ['https://cdn.example.com/out.png'],
      credits_charged: 4,
      duration_ms: 1,
      completed_at: new Date().toISOString(),
    });
    const headers = {
      'content-type': 'application/json',
      'x-service-signature': await signWebhook(payload, SECRET),
      'x-service-event': 'generation.completed',
    };
    return { payload: Buffer.from(payload), headers };
  };

  it('a signed delivery trickled past the deadline is answered 503 WEBHOOK_BODY_TIMEOUT while it is still trickling, never 200', async () => {
    const { payload, headers } = await signed('gen_trickled');
    const upload = rawUpload(studio.origin, ROUTE, { ...headers, 'content-length': String(payload.length) });
    // 8 bytes every 200 ms (about 10 s for the body, twice the service's 5 s window); the
    // last byte waits for the answer, so only a receiver that waits for the end sees it.
    for (let at = 0; at < payload.length - 1 && !upload.answered; at += 8) {
      await upload.write(payload.subarray(at, Math.min(at + 8, payload.length - 1)));
      await pause(200);
    }
    if (!(await answeredWithin(upload, PATIENCE_MS))) await upload.write(payload.subarray(payload.length - 1));
    const answer = await upload.answer;
    expect(answer.status).toBe(503);
    expect(errorBody(answer)).toMatchObject({ error: 'WEBHOOK_BODY_TIMEOUT', request_id: null });
    expect(answer.sentBeforeAnswer).toBeLessThan(payload.length);
  });

  it('a Content-Length larger than the body sent, then silence, is answered 503 WEBHOOK_BODY_TIMEOUT', async () => {
    const { payload, headers } = await signed('gen_short');
    const upload = rawUpload(studio.origin, ROUTE, { ...headers, 'content-length': String(payload.length + 64) });
    await upload.write(payload);
    const answer = await answeredWithin(upload, PATIENCE_MS);
    upload.close();
    expect(answer, 'no answer while the body stayed short').toBeDefined();
    expect(answer?.status).toBe(503);
    expect(answer && errorBody(answer)).toMatchObject({ error: 'WEBHOOK_BODY_TIMEOUT' });
  });

  for (const framing of ['chunked', 'content-length'] as const) {
    it(`8 MiB sent slowly (${framing}) to a 1 MiB cap is answered 413 long before the body is sent`, async () => {
      const total = 8 * MiB;
      const upload = rawUpload(studio.origin, ROUTE, {
        'content-type': 'application/json',
        ...(framing === 'content-length' ? { 'content-length': String(total) } : {}),
      });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      // 64 KiB every 10 ms up to twice the cap; then the sender waits for the answer before
      // going on, so a receiver that reads only its cap always answers before the rest is sent.
      while (upload.sent < 2 * CAP && !upload.answered && !upload.closed) {
        await upload.write(chunk);
        await pause(10);
      }
      if (!(await answeredWithin(upload, PATIENCE_MS))) {
        while (upload.sent < total && !upload.answered && !upload.closed) await upload.write(chunk);
        await upload.end();
      }
      const answer = await upload.answer;
      expect(answer.status).toBe(413);
      expect(errorBody(answer)).toMatchObject({ error: 'WEBHOOK_BODY_TOO_LARGE' });
      expect(answer.sentBeforeAnswer).toBeLessThanOrEqual(2 * CAP);
    });
  }

  it('16 stalled 9 MiB uploads do not make next-server hold their bodies', async () => {
    const connections = 16;
    const size = 9 * MiB;
    const before = rss(studio.pid);
    const uploads = Array.from({ length: connections }, (_, i) =>
      rawUpload(studio.origin, ROUTE, {
        'content-type': 'application/json',
        // Half declare their size, half are chunked (only a streaming reader's count stops those).
        ...(i % 2 === 0 ? { 'content-length': String(size) } : {}),
      }),
    );
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    // Each sends all but its last chunk, then stalls: settled once answered, or once the
    // server has taken all of it (what a receiver buffering the body does), or once the
    // connection is gone (a write to a closed socket resolves at once: looping on it would spin
    // forever, starving even the test's timeout).
    await Promise.all(
      uploads.map(async (upload) => {
        while (upload.sent < size - chunk.length && !upload.answered && !upload.closed) await upload.write(chunk);
      }),
    );
    const grown = rss(studio.pid) - before;
    const answers = await Promise.all(uploads.map((upload) => answeredWithin(upload, PATIENCE_MS)));
    for (const upload of uploads) upload.close();
    console.info(
      `next-server RSS: +${(grown / MiB).toFixed(1)} MiB for ${connections} stalled uploads (${(grown / connections / MiB).toFixed(2)} MiB each)`,
    );
    // Each costs about the cap at most, not its body (buffered, it was 6 to 9 MiB each). The
    // bound, a third of the body, leaves room for the cap's worth each chunked upload was read
    // before its refusal, garbage the collector may not have reclaimed yet…
    expect(grown / connections).toBeLessThan(size / 3);
    // …and is refused at the cap, by its Content-Length or by the count of what it sent.
    expect(answers.map((answer) => answer?.status)).toEqual(Array(connections).fill(413));
  });
});
