import 'reflect-metadata';
import { request } from 'node:http';
import { deliver, makePayload } from '@mediagen/conformance';
import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MediaGenModule } from '../src';
import { handlerProviders, Recorder } from './support/handlers';
import { PLATFORMS, startApp } from './support/nest';

const SECRET = 'whsec_nest_parser';
const PATH = 'api/webhooks/mediagen';

/** A Sentry-like global filter: catches everything and answers 200. A refused delivery must never reach it. */
@Catch()
class SwallowEverythingFilter implements ExceptionFilter {
  static seen: unknown[] = [];
  catch(error: unknown, host: ArgumentsHost) {
    SwallowEverythingFilter.seen.push(error);
    const res = host.switchToHttp().getResponse();
    if (typeof res.code === 'function') res.code(200).send({ swallowed: true });
    else res.status(200).json({ swallowed: true });
  }
}

/** The contract's error body (`error`, `message`, `next`, `request_id`), as core's `errorReply` writes it. */
const contractError = (code: string) => ({ error: code, message: expect.any(String), next: expect.any(String), request_id: null });

/**
 * Sends the headers and the start of a body that never ends (100 000 bytes announced, 17 sent);
 * resolves with the status and body answered. Any answer at all is one given while the body was
 * still arriving: that, not a stopwatch, proves the deadline covers the body.
 */
function unfinishedBody(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '100000', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => void (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.write('{"generation_id":');
  });
}

for (const platform of PLATFORMS) {
  describe(`${platform}: bodies the platform's parser refuses never reach the app's exception filters`, () => {
    const recorder = new Recorder();
    let origin: string;
    let close: () => Promise<void>;
    const url = () => `${origin}/${PATH}`;

    beforeAll(async () => {
      ({ origin, close } = await startApp({
        platform,
        imports: [
          MediaGenModule.forRoot({
            apiKey: 'svc_live_x',
            // Larger than both platforms' own parser limits (Express 100 kB, Fastify 1 MiB), so theirs refuses first.
            // The default deadline (4 s): a good delivery must never race a short one on a loaded machine.
            webhook: { path: 'webhooks/mediagen', secrets: SECRET, maxBodyBytes: 8 * 1024 * 1024 },
          }),
        ],
        providers: handlerProviders(recorder),
        configure: (app) => {
          app.setGlobalPrefix('api');
          app.useGlobalFilters(new SwallowEverythingFilter());
        },
      }));
    });
    afterAll(async () => close?.());
    beforeEach(() => {
      recorder.reset();
      SwallowEverythingFilter.seen = [];
    });

    it('malformed JSON without a valid signature gets 401 and the contract error body', async () => {
      const res = await deliver(url(), '{"generation_id": oops', { secret: 'whsec_someone_else' });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.json()).toEqual(contractError('WEBHOOK_SIGNATURE_INVALID'));
      expect(SwallowEverythingFilter.seen).toEqual([]);
      expect(recorder.calls).toEqual([]);
    });

    it('signed malformed JSON gets 400 and the contract error body', async () => {
      const res = await deliver(url(), '{"generation_id": oops', { secret: SECRET });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(contractError('WEBHOOK_PAYLOAD_INVALID'));
      expect(SwallowEverythingFilter.seen).toEqual([]);
      expect(recorder.calls).toEqual([]);
    });

    it("a body over the platform parser's size limit gets 413 and the contract error body", async () => {
      const payload = makePayload({ padding: 'x'.repeat(1_500_000) });
      const res = await deliver(url(), payload, { secret: SECRET });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual(contractError('WEBHOOK_BODY_TOO_LARGE'));
      expect(SwallowEverythingFilter.seen).toEqual([]);
      expect(recorder.calls).toEqual([]);
    });

    it('a content type no parser takes gets 415 and the contract error body', async () => {
      const res = await deliver(url(), makePayload(), { secret: SECRET, contentType: 'application/xml' });
      expect(res.status).toBe(415);
      expect(await res.json()).toEqual(contractError('WEBHOOK_CONTENT_TYPE'));
      expect(SwallowEverythingFilter.seen).toEqual([]);
      expect(recorder.calls).toEqual([]);
    });

    it("a body still arriving at deadlineMs gets 503 (the service retries it) with core's error body", async () => {
      const { status, body } = await unfinishedBody(url());
      expect(status).toBe(503);
      expect(JSON.parse(body)).toEqual(contractError('WEBHOOK_BODY_TIMEOUT'));
      expect(SwallowEverythingFilter.seen).toEqual([]);
      expect(recorder.calls).toEqual([]);
    });

    it('other routes keep going through the global filters, and a good delivery still gets 200', async () => {
      const res = await fetch(`${origin}/api/elsewhere`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{oops',
      });
      expect(await res.json()).toEqual({ swallowed: true });
      expect(SwallowEverythingFilter.seen).toHaveLength(1);
      const payload = makePayload();
      expect((await deliver(url(), payload, { secret: SECRET })).status).toBe(200);
      expect(recorder.ran(payload.generation_id)).toContain('completed');
    });
  });
}
