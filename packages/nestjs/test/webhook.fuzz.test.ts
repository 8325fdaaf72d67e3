import 'reflect-metadata';
import { signWebhook } from '@mediagen/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaGenModule } from '../src';
import { handlerProviders, Recorder } from './support/handlers';
import { PLATFORMS, startApp } from './support/nest';

const SECRET = 'whsec_nest_fuzz';

/** What a hostile or broken sender can vary: body bytes, content type, signature, event header. */
const delivery = fc.record({
  body: fc.oneof(fc.string({ maxLength: 300 }), fc.json({ maxDepth: 3 }), fc.constant('{"generation_id":"x","status":"completed"}')),
  contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
  signature: fc.oneof(fc.constant<'valid'>('valid'), fc.string({ maxLength: 80 }), fc.constant(`sha256=${'0'.repeat(64)}`)),
  event: fc.oneof(fc.constant('generation.completed'), fc.string({ maxLength: 40 })),
});

for (const platform of PLATFORMS) {
  describe(`${platform}: arbitrary deliveries`, () => {
    const recorder = new Recorder();
    let origin: string;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ origin, close } = await startApp({
        platform,
        imports: [MediaGenModule.forRoot({ apiKey: 'svc_live_x', webhook: { path: 'hook', secrets: SECRET } })],
        providers: handlerProviders(recorder),
      }));
    });
    afterAll(async () => close?.());

    it('get a JSON 4xx unless signed and well-formed, never a 5xx, and run no handler for a refused one', async () => {
      await fc.assert(
        fc.asyncProperty(delivery, async ({ body, contentType, signature, event }) => {
          const before = recorder.calls.length;
          const headers: Record<string, string> = { 'content-type': contentType, 'x-service-event': event };
          const signed = signature === 'valid';
          headers['x-service-signature'] = signed ? await signWebhook(body, SECRET) : signature;
          const res = await fetch(`${origin}/hook`, { method: 'POST', headers, body });
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) expect(recorder.calls.length).toBe(before);
          if (!signed) expect(res.status).toBeGreaterThanOrEqual(400);
          if (res.status >= 400) expect(res.headers.get('content-type')).toMatch(/json/);
          await res.arrayBuffer();
        }),
        { numRuns: 60 },
      );
    });
  });
}
