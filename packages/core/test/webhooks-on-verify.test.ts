import { describe, expect, it } from 'vitest';
import { signWebhook, WebhookVerificationError } from '../src/index';
import { createWebhookHandler, type WebhookVerifyInfo } from '../src/server';

const SECRET = 'whsec_on_verify_secret_1234';

async function delivery(signature?: string) {
  const body = JSON.stringify({
    generation_id: 'gen-on-verify',
    status: 'completed',
    model: 'image-fast',
    output_url: 'http://127.0.0.1:4010/api/v1/output/gen-on-verify/1/sig/0/out.png',
    credits_charged: 4,
    duration_ms: 10,
    completed_at: '2025-01-01T00:00:00.000Z',
  });
  const headers = new Headers({ 'content-type': 'application/json', 'x-service-delivery-id': 'dlv_1' });
  headers.set('x-service-signature', signature ?? (await signWebhook(body, SECRET)));
  return {
    request: new Request('http://localhost/webhooks', { method: 'POST', headers, body }),
    signature: headers.get('x-service-signature'),
  };
}

describe('createWebhookHandler({ onVerify })', () => {
  it('sees each signature check once, verified or refused, without the secret or the signature', async () => {
    const seen: WebhookVerifyInfo[] = [];
    const handler = createWebhookHandler({ secrets: SECRET, onEvent: () => {}, onVerify: (info) => void seen.push(info) });

    const good = await delivery();
    expect((await handler(good.request)).status).toBe(200);
    const forged = await delivery(`sha256=${'0'.repeat(64)}`);
    expect((await handler(forged.request)).status).toBe(401);

    expect(seen).toHaveLength(2);
    const [verified, refused] = seen;
    expect(verified?.event).toMatchObject({ type: 'generation.completed', data: { generation_id: 'gen-on-verify' } });
    expect(verified?.error).toBeUndefined();
    expect(refused?.event).toBeUndefined();
    expect(refused?.error).toBeInstanceOf(WebhookVerificationError);
    expect(refused?.error).toMatchObject({ code: 'WEBHOOK_SIGNATURE_INVALID' });
    for (const info of seen) {
      expect(info.elapsedMs).toBeGreaterThanOrEqual(0);
      expect(info.startedAt).toBeGreaterThan(0);
    }
    const text = JSON.stringify(seen.map(({ event, error, ...rest }) => [event, String(error), rest]));
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(good.signature?.slice('sha256='.length));
  });

  it('an observer that throws changes no answer', async () => {
    const handler = createWebhookHandler({
      secrets: SECRET,
      onEvent: () => {},
      onVerify: () => {
        throw new Error('observer broke');
      },
    });
    expect((await handler((await delivery()).request)).status).toBe(200);
    expect((await handler((await delivery(`sha256=${'1'.repeat(64)}`)).request)).status).toBe(401);
  });
});
