import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHmac } from '../src/crypto/hmac';
import { signWebhook, verifyWebhook, WebhookVerificationError } from '../src/index';
import { verifyWebhookWith } from '../src/testing';
import { isParsedBody, isRawBody, RAW_BODY_HELP } from '../src/webhooks/raw-body';

const SECRET = 'whsec_test_one';
const OTHER = 'whsec_test_two';
const payload = {
  generation_id: '6f1c2a52-9d0e-4a53-a0b5-3e1f0f7b2c11',
  status: 'completed',
  model: 'image-fast',
  output_url: 'https://x/api/v1/output/6f1c/1700000000/sig/0/a.png',
  output_urls: ['https://x/api/v1/output/6f1c/1700000000/sig/0/a.png'],
  credits_charged: 4,
  duration_ms: 5123,
  completed_at: '2025-01-01T00:00:00.000Z',
};
const body = JSON.stringify(payload);

async function expectVerificationError(promise: Promise<unknown>, code?: string): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  if (code) expect((error as WebhookVerificationError).code).toBe(code);
  return error as WebhookVerificationError;
}

describe('signWebhook / verifyWebhook', () => {
  it('signs as sha256=<64 lowercase hex>', async () => {
    expect(await signWebhook(body, SECRET)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('reads the hex in either case, and a signature one nibble off in any position fails', async () => {
    const signature = await signWebhook(body, SECRET);
    const hex = signature.slice(7);
    const upper = `sha256=${hex.toUpperCase()}`;
    expect((await verifyWebhook({ body, signature: upper, secrets: SECRET })).data.generation_id).toBe(payload.generation_id);
    for (let i = 0; i < 64; i++) {
      const flipped = (Number.parseInt(hex[i] as string, 16) ^ 1).toString(16);
      const wrong = `sha256=${hex.slice(0, i)}${i % 2 ? flipped.toUpperCase() : flipped}${hex.slice(i + 1)}`;
      await expect(verifyWebhook({ body, signature: wrong, secrets: SECRET })).rejects.toBeInstanceOf(WebhookVerificationError);
    }
  });

  it('accepts a string body and returns the typed event', async () => {
    const signature = await signWebhook(body, SECRET);
    const event = await verifyWebhook({ body, signature, secrets: SECRET, event: 'generation.completed', deliveryId: 'd-1' });
    expect(event).toEqual({ type: 'generation.completed', deliveryId: 'd-1', data: payload });
  });

  it('accepts bytes, ArrayBuffer and Buffer, and the same signature on each', async () => {
    const signature = await signWebhook(body, SECRET);
    const bytes = new TextEncoder().encode(body);
    for (const form of [bytes, bytes.buffer, Buffer.from(body)]) {
      await expect(verifyWebhook({ body: form, signature, secrets: SECRET })).resolves.toMatchObject({ data: payload });
    }
  });

  it('takes the type from the signed data.status; an event header may only repeat it', async () => {
    const failed = JSON.stringify({ ...payload, status: 'failed', error_code: 'unknown' });
    const sig = await signWebhook(failed, SECRET);
    const event = await verifyWebhook({ body: failed, signature: sig, secrets: SECRET });
    expect(event.type).toBe('generation.failed');
    expect(event.deliveryId).toBeUndefined();
    // The failed branch of the union: the error fields are there, normalised from an earlier form.
    if (event.type === 'generation.failed')
      expect([event.data.error_code, event.data.error_message, event.data.retryable]).toEqual(['unknown', '', false]);
    await expectVerificationError(
      verifyWebhook({ body: failed, signature: sig, secrets: SECRET, event: 'generation.completed' }),
      'WEBHOOK_EVENT_MISMATCH',
    );
  });

  it('returns an authentic delivery of a type this SDK does not know as an unknown event, its signed body as sent', async () => {
    const known = new Set(['completed', 'failed']);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined)).filter((s) => !known.has(s as string)),
        fc.dictionary(
          fc.string().filter((k) => k !== 'status' && k !== '__proto__'),
          fc.jsonValue(),
        ),
        fc.option(fc.constantFrom('generation.archived', 'credits.low', ''), { nil: undefined }),
        async (status, extra, header) => {
          const data = JSON.parse(JSON.stringify({ ...extra, status }));
          const text = JSON.stringify(data);
          const event = await verifyWebhook({
            body: text,
            signature: await signWebhook(text, SECRET),
            secrets: SECRET,
            event: header,
            deliveryId: 'd-9',
          });
          expect(event).toEqual({ type: 'unknown', deliveryId: 'd-9', data });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('an unknown event is still only what is signed: a forged body or a non-object is refused', async () => {
    const future = JSON.stringify({ ...payload, status: 'archived' });
    const sig = await signWebhook(future, SECRET);
    await expectVerificationError(verifyWebhook({ body: future.replace('archived', 'archivex'), signature: sig, secrets: SECRET }));
    const list = '["archived"]';
    await expectVerificationError(
      verifyWebhook({ body: list, signature: await signWebhook(list, SECRET), secrets: SECRET }),
      'WEBHOOK_PAYLOAD_INVALID',
    );
  });

  it("takes Node's header values (string | string[] | undefined) and a repeated header's first value", async () => {
    const sig = await signWebhook(body, SECRET);
    const headers: Record<string, string | string[] | undefined> = {
      'x-service-signature': [sig, 'sha256=00'],
      'x-service-event': undefined,
    };
    const event = await verifyWebhook({
      body,
      signature: headers['x-service-signature'],
      secrets: SECRET,
      event: headers['x-service-event'],
    });
    expect(event.type).toBe('generation.completed');
    if (event.type === 'generation.completed') expect(event.data.output_url.startsWith('https://')).toBe(true);
  });

  it('a detached buffer is a WebhookVerificationError, not a TypeError', async () => {
    const bytes = new TextEncoder().encode(body);
    const sig = await signWebhook(bytes, SECRET);
    structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
    await expectVerificationError(verifyWebhook({ body: bytes, signature: sig, secrets: SECRET }), 'WEBHOOK_BODY_MISSING');
  });

  it('passes when any one of several secrets matches (rotation, several endpoints)', async () => {
    const signature = await signWebhook(body, OTHER);
    await expect(verifyWebhook({ body, signature, secrets: [SECRET, OTHER] })).resolves.toBeTruthy();
    await expectVerificationError(verifyWebhook({ body, signature, secrets: [SECRET] }), 'WEBHOOK_SIGNATURE_INVALID');
  });

  it('refuses a parsed object and explains how to get the raw body per framework', async () => {
    const signature = await signWebhook(body, SECRET);
    const error = await expectVerificationError(
      verifyWebhook({ body: payload as unknown as string, signature, secrets: SECRET }),
      'WEBHOOK_BODY_PARSED',
    );
    expect(error.message).toContain("express.raw({ type: 'application/json' })");
    expect(error.message).toContain('await request.text()');
    expect(error.message).toContain('rawBody: true');
    expect(error.message).toBe(RAW_BODY_HELP);
    expect(isParsedBody(payload)).toBe(true);
    expect(isParsedBody(Buffer.from('x'))).toBe(false);
    expect(isRawBody('x')).toBe(true);
  });

  it('distinguishes a missing signature, a malformed one, a missing secret and a non-JSON body', async () => {
    await expectVerificationError(verifyWebhook({ body, signature: null, secrets: SECRET }), 'WEBHOOK_SIGNATURE_MISSING');
    await expectVerificationError(verifyWebhook({ body, signature: 'sha1=abc', secrets: SECRET }), 'WEBHOOK_SIGNATURE_INVALID');
    await expectVerificationError(
      verifyWebhook({ body, signature: await signWebhook(body, SECRET), secrets: [] }),
      'WEBHOOK_SECRET_MISSING',
    );
    const text = 'not json';
    await expectVerificationError(
      verifyWebhook({ body: text, signature: await signWebhook(text, SECRET), secrets: SECRET }),
      'WEBHOOK_PAYLOAD_INVALID',
    );
  });

  it('never puts a secret in an error message', async () => {
    const error = await expectVerificationError(verifyWebhook({ body, signature: 'sha256=' + '0'.repeat(64), secrets: SECRET }));
    expect(JSON.stringify({ m: error.message, n: error.next, j: error.toJSON() })).not.toContain(SECRET);
  });
});

const anyBody = fc.oneof(fc.string(), fc.uint8Array({ maxLength: 512 }), fc.anything());
const anyHeader = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string(),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 64, maxLength: 64 }).map((h) => `sha256=${h}`),
  fc.anything(),
);
const secretsArb = fc.oneof(fc.string({ minLength: 1 }), fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 5 }));

describe('verifyWebhook properties', () => {
  for (const backend of ['node', 'web'] as const) {
    it(`[${backend}] throws nothing but WebhookVerificationError on arbitrary bodies, headers and secrets`, async () => {
      const hmac = createHmac(backend);
      await fc.assert(
        fc.asyncProperty(anyBody, anyHeader, fc.oneof(secretsArb, fc.anything()), anyHeader, async (b, sig, secrets, event) => {
          try {
            await verifyWebhookWith(hmac, { body: b, signature: sig, secrets, event } as never);
          } catch (error) {
            expect(error).toBeInstanceOf(WebhookVerificationError);
          }
        }),
        { numRuns: 300 },
      );
    });
  }

  it('accepts exactly the bodies signed with one of the secrets', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string(), fc.jsonValue()).map((o) => JSON.stringify(o)),
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 20 }), { minLength: 2, maxLength: 5 }),
        fc.nat(),
        fc.boolean(),
        async (b, secrets, pick, signedByKnown) => {
          const configured = secrets.slice(0, -1);
          const signer = signedByKnown ? configured[pick % configured.length]! : secrets[secrets.length - 1]!;
          const signature = await signWebhook(b, signer);
          const accepted = await verifyWebhook({ body: b, signature, secrets: configured }).then(
            () => true,
            (e: unknown) => {
              expect(e).toBeInstanceOf(WebhookVerificationError);
              // A random signed body is rarely a valid event: what matters here is the signature.
              return (e as WebhookVerificationError).code !== 'WEBHOOK_SIGNATURE_INVALID';
            },
          );
          expect(accepted).toBe(signedByKnown);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rejects any single-bit change of a signed body', async () => {
    const signature = await signWebhook(body, SECRET);
    const bytes = new TextEncoder().encode(body);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 0, max: 7 }), async (i, bit) => {
        const tampered = bytes.slice();
        tampered[i]! ^= 1 << bit;
        await expectVerificationError(verifyWebhook({ body: tampered, signature, secrets: SECRET }), 'WEBHOOK_SIGNATURE_INVALID');
      }),
      { numRuns: 100 },
    );
  });
});
