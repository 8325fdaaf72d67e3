import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MediaGenClient, signWebhook, verifyWebhook, WebhookVerificationError } from '../src/index';
import { createMediaGenHandler, createWebhookHandler } from '../src/server';

/**
 * JSON is UTF-8 (RFC 8259), and unparseable JSON is `422 INVALID_BODY` (spec: Errors): core's own
 * readers of JSON bodies refuse bytes that are not UTF-8 as the emulator does, instead of reading
 * them as U+FFFD. Sequences: a lone continuation byte, an overlong form, a byte no UTF-8 has, a
 * cut-off sequence, a surrogate.
 */
const notUtf8 = fc.oneof(
  fc.integer({ min: 0x80, max: 0xbf }).map((b) => [b]),
  fc.tuple(fc.constantFrom(0xc0, 0xc1), fc.integer({ min: 0x80, max: 0xbf })).map((t) => [...t]),
  fc.integer({ min: 0xf5, max: 0xff }).map((b) => [b]),
  fc.constant([0xe2, 0x82] as number[]),
  fc.tuple(fc.integer({ min: 0xa0, max: 0xbf }), fc.integer({ min: 0x80, max: 0xbf })).map(([a, b]) => [0xed, a, b]),
);

const encoder = new TextEncoder();
/** `head`, the bad bytes, `tail`: a JSON text but for those bytes. */
const bytes = (head: string, bad: number[], tail: string) => new Uint8Array([...encoder.encode(head), ...bad, ...encoder.encode(tail)]);

const SECRET = 'whsec_utf8';
const event = (bad: number[]) => bytes('{"generation_id":"g-1","status":"failed","error_code":"unknown","error_message":"', bad, '"}');

describe('a body that is not UTF-8 is not JSON', () => {
  it('verifyWebhook: an authentic delivery whose body is not UTF-8 is WEBHOOK_PAYLOAD_INVALID, never an event with U+FFFD', async () => {
    await fc.assert(
      fc.asyncProperty(notUtf8, async (bad) => {
        const body = event(bad);
        const error = await verifyWebhook({ body, signature: await signWebhook(body, SECRET), secrets: SECRET }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect((error as WebhookVerificationError).code).toBe('WEBHOOK_PAYLOAD_INVALID');
        // Says what is wrong with it: not UTF-8 (not "not a JSON object", which the bytes may well be).
        expect((error as WebhookVerificationError).message).toBe('Not an event: not UTF-8');
      }),
      { numRuns: 100 },
    );
    // Text that is UTF-8 but not a JSON object is told apart.
    for (const text of ['', '{"generation_id":', '[1]', '"x"', 'null']) {
      const error = await verifyWebhook({ body: text, signature: await signWebhook(text, SECRET), secrets: SECRET }).catch(
        (e: unknown) => e,
      );
      expect((error as WebhookVerificationError).message, JSON.stringify(text)).toBe('Not an event: not a JSON object');
    }
    // The control: the same delivery in valid UTF-8 is an event.
    const good = event([...encoder.encode('–')]);
    await expect(verifyWebhook({ body: good, signature: await signWebhook(good, SECRET), secrets: SECRET })).resolves.toMatchObject({
      type: 'generation.failed',
    });
  });

  it('the webhook receiver answers 400 and runs nothing', async () => {
    let ran = 0;
    const receiver = createWebhookHandler({ secrets: SECRET, dedupe: false, onEvent: () => void ran++ });
    await fc.assert(
      fc.asyncProperty(notUtf8, async (bad) => {
        const body = event(bad);
        const res = await receiver(
          new Request('http://app.test/webhooks', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-signature': await signWebhook(body, SECRET) },
            body,
          }),
        );
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: 'WEBHOOK_PAYLOAD_INVALID', message: 'Not an event: not UTF-8' });
      }),
      { numRuns: 50 },
    );
    expect(ran).toBe(0);
  });

  it('the JSON routes answer 422 INVALID_BODY before anything is sent to the service', async () => {
    let sent = 0;
    const client = new MediaGenClient({
      apiKey: 'svc_live_utf8',
      baseUrl: 'http://127.0.0.1:9',
      validate: false,
      maxRetries: 0,
      fetch: async () => {
        sent++;
        return Response.json({ generation_id: 'g-1', credits_estimate: 1 }, { status: 202 });
      },
    });
    const handler = createMediaGenHandler({ client, basePath: '/api', allowAnonymous: true });
    await fc.assert(
      fc.asyncProperty(notUtf8, async (bad) => {
        const res = await handler(
          new Request('http://app.test/api/generations', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: bytes('{"model":"image-fast","prompt":"a ', bad, ' fox"}'),
          }),
        );
        expect(res.status).toBe(422);
        expect(await res.json()).toMatchObject({ error: 'INVALID_BODY' });
      }),
      { numRuns: 50 },
    );
    expect(sent).toBe(0);
  });
});
