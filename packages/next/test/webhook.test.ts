import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookHandler } from '../src';
import { payload, SECRET, signedRequest } from './support/delivery';

describe('createWebhookHandler with new Request(...) on Node', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('verifies, hands the typed event over once, and answers a duplicate 200 without running again', async () => {
    const seen: WebhookEvent[] = [];
    const POST = createWebhookHandler({ secrets: SECRET, onEvent: (event) => void seen.push(event) });
    const body = payload();
    const first = await POST(await signedRequest(body));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    const again = await POST(await signedRequest(body));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: 'generation.completed', data: body });
  });

  it('two handlers in one process keep their own de-duplication: each runs its handler once', async () => {
    const a: string[] = [];
    const b: string[] = [];
    const first = createWebhookHandler({ secrets: SECRET, onEvent: (e) => void a.push(e.data.generation_id) });
    const second = createWebhookHandler({ secrets: SECRET, onEvent: (e) => void b.push(e.data.generation_id) });
    const body = payload();
    for (const POST of [first, second, first, second]) expect((await POST(await signedRequest(body))).status).toBe(200);
    expect(a).toEqual([body.generation_id]);
    expect(b).toEqual([body.generation_id]);
  });

  it('reads the secret from MEDIAGEN_WEBHOOK_SECRET (comma-separated) when none is given', async () => {
    vi.stubEnv('MEDIAGEN_WEBHOOK_SECRET', `whsec_old, ${SECRET}`);
    const POST = createWebhookHandler({ onEvent: () => {} });
    expect((await POST(await signedRequest(payload()))).status).toBe(200);
    expect((await POST(await signedRequest(payload(), 'whsec_old'))).status).toBe(200);
    expect((await POST(await signedRequest(payload(), 'whsec_other'))).status).toBe(401);
  });

  it('with no secret anywhere it answers 5xx (the delivery stays alive until the app is configured)', async () => {
    vi.stubEnv('MEDIAGEN_WEBHOOK_SECRET', '');
    const POST = createWebhookHandler({ onEvent: () => {} });
    const res = await POST(await signedRequest(payload()));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: 'WEBHOOK_SECRET_MISSING' });
  });

  it('the event type comes from the signed body: a header that contradicts it is refused 400 and never runs the handler', async () => {
    const seen: string[] = [];
    const POST = createWebhookHandler({ secrets: SECRET, onEvent: (e) => void seen.push(e.type) });
    const failed = payload({
      status: 'failed',
      output_url: null,
      output_urls: null,
      error_code: 'unknown',
      error_message: 'x',
      retryable: false,
    });
    const request = await signedRequest(failed);
    const forged = new Request(request, { headers: { ...Object.fromEntries(request.headers), 'x-service-event': 'generation.completed' } });
    const res = await POST(forged);
    // The header is not signed: contradicting the signed body is a terminal 4xx, not a 5xx to retry.
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'WEBHOOK_EVENT_MISMATCH' });
    expect(seen).toEqual([]);
    // The same signed body with a header that agrees: handled once, typed from the body.
    const honest = await POST(await signedRequest(failed));
    expect(honest.status).toBe(200);
    expect(await honest.json()).toEqual({ received: true });
    expect(seen).toEqual(['generation.failed']);
  });

  it('publishes verified events to client.events, so wait() on that client resolves on the webhook', async () => {
    const client = new MediaGenClient({ apiKey: 'svc_live_next_test', baseUrl: 'http://127.0.0.1:9' });
    const body = payload();
    // A client made with no events gets in-process ones from the receiver it is given.
    expect(client.events).toBeUndefined();
    const POST = createWebhookHandler({ secrets: SECRET, client, onEvent: () => {} });
    const events = client.events;
    if (!events) throw new Error('the receiver did not install events on the client');
    const received = new Promise<WebhookEvent>((resolve) => events.subscribe(body.generation_id, resolve));
    expect((await POST(await signedRequest(body))).status).toBe(200);
    expect((await received).data.generation_id).toBe(body.generation_id);
  });

  it('work after the answer goes to the injected waitUntil, and the 2xx comes only once the claim is stored', async () => {
    const kept: Promise<unknown>[] = [];
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let done = false;
    const claims: string[] = [];
    const store = {
      claim: async (key: string) => (claims.push(`claim ${key}`), 'claimed' as const),
      complete: async (key: string) => void claims.push(`complete ${key}`),
      release: async (key: string) => void claims.push(`release ${key}`),
    };
    const POST = createWebhookHandler({
      secrets: SECRET,
      dedupe: store,
      waitUntil: (promise) => void kept.push(promise),
      onEvent: async (_event, context) => {
        context.acknowledge();
        await finished;
        done = true;
      },
    });
    const body = payload();
    const res = await POST(await signedRequest(body));
    expect(res.status).toBe(200);
    // Answered while the handler still runs, after the claim was marked complete.
    expect(done).toBe(false);
    expect(claims).toEqual([`claim ${body.generation_id}:generation.completed`, `complete ${body.generation_id}:generation.completed`]);
    expect(kept.length).toBeGreaterThan(0);
    finish();
    await Promise.all(kept);
    expect(done).toBe(true);
  });

  it('calls the injected waitUntil/after only while handling a delivery, never at creation', async () => {
    let calls = 0;
    const POST = createWebhookHandler({ secrets: SECRET, onEvent: () => {}, waitUntil: () => void (calls += 1) });
    expect(calls).toBe(0);
    expect((await POST(await signedRequest(payload()))).status).toBe(200);
    expect(calls).toBeGreaterThan(0);
  });

  it('refuses what is not a delivery with 4xx and never runs the handler', async () => {
    const onEvent = vi.fn();
    const POST = createWebhookHandler({ secrets: SECRET, onEvent });
    const good = await signedRequest(payload());
    const text = new Request(good, { headers: { ...Object.fromEntries(good.headers), 'content-type': 'text/plain' } });
    expect((await POST(text)).status).toBe(415);
    const unsigned = new Request('http://localhost/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect((await POST(unsigned)).status).toBe(401);
    expect(onEvent).not.toHaveBeenCalled();
  });
});
