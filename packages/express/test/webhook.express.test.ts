import { request } from 'node:http';
import { deliver, makePayload, NEW_SECRET } from '@mediagen/conformance';
import { ConfigurationError, signWebhook, type WebhookEvent } from '@mediagen/core';
import express5 from 'express';
import express4 from 'express4';
import { afterEach, describe, expect, it } from 'vitest';
import { mediagenWebhook } from '../src';
import { type ExpressModule, serve } from './support/serve';

const PATH = '/api/webhooks/mediagen';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function app(
  expressModule: ExpressModule,
  mount: (app: ReturnType<ExpressModule>, hook: ReturnType<typeof mediagenWebhook>) => void,
) {
  const events: WebhookEvent[] = [];
  const errors: unknown[] = [];
  const hook = mediagenWebhook({ secrets: NEW_SECRET, onEvent: (event) => void events.push(event), onError: (e) => errors.push(e) });
  const { origin, close } = await serve(expressModule, (a) => mount(a, hook));
  closers.push(close);
  return { url: origin + PATH, events, errors };
}

describe.each([
  ['express 5', express5],
  ['express 4', express4],
] as const)('%s: where the raw body comes from', (_name, expressModule) => {
  it('express.json() mounted before the route: a clear 500 that explains the mount order, and no handler', async () => {
    const { url, events, errors } = await app(expressModule, (a, hook) => {
      a.use(expressModule.json());
      a.post(PATH, hook);
    });
    const res = await deliver(url, makePayload(), { secret: NEW_SECRET });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.error).toBe('WEBHOOK_BODY_PARSED');
    expect(body.message).toMatch(/express\.json\(\)/);
    expect(body.next).toMatch(/before app\.use\(express\.json\(\)\)/);
    expect(events).toHaveLength(0);
    expect(errors).toHaveLength(1);
  });

  it('the route mounted before express.json() works', async () => {
    const { url, events } = await app(expressModule, (a, hook) => {
      a.post(PATH, hook);
      a.use(expressModule.json());
    });
    expect((await deliver(url, makePayload(), { secret: NEW_SECRET })).status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('express.json({ verify }) keeping req.rawBody works: the raw bytes are used, never a re-stringified object', async () => {
    const { url, events } = await app(expressModule, (a, hook) => {
      a.use(expressModule.json({ verify: (req, _res, buf) => void ((req as unknown as { rawBody: Buffer }).rawBody = buf) }));
      a.post(PATH, hook);
    });
    // Spacing that JSON.stringify would not reproduce: a re-stringified body would fail the signature.
    const raw = JSON.stringify(makePayload(), null, 2);
    expect((await deliver(url, raw, { secret: NEW_SECRET })).status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('express.text() leaving a string body works', async () => {
    const { url, events } = await app(expressModule, (a, hook) => {
      a.post(PATH, expressModule.text({ type: 'application/json' }), hook);
    });
    expect((await deliver(url, JSON.stringify(makePayload(), null, 1), { secret: NEW_SECRET })).status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('the handler gets the Express request beside the event', async () => {
    let seen: unknown;
    const hook = mediagenWebhook({ secrets: NEW_SECRET, onEvent: (_event, { platform }) => void (seen = platform?.get('user-agent')) });
    const { origin, close } = await serve(expressModule, (a) => a.post(PATH, hook));
    closers.push(close);
    expect((await deliver(origin + PATH, makePayload(), { secret: NEW_SECRET })).status).toBe(200);
    expect(seen).toBe('Service-Webhook/1.0');
  });
});

describe('options', () => {
  it("takes a limit like '1kb'", async () => {
    const hook = mediagenWebhook({ secrets: NEW_SECRET, maxBodyBytes: '1kb', onEvent: () => {} });
    const { origin, close } = await serve(express5, (a) => a.post(PATH, hook));
    closers.push(close);
    const small = await deliver(origin + PATH, makePayload(), { secret: NEW_SECRET });
    const big = await deliver(origin + PATH, makePayload({ padding: 'x'.repeat(1100) }), { secret: NEW_SECRET });
    expect([small.status, big.status]).toEqual([200, 413]);
  });

  it('refuses a malformed limit at setup', () => {
    expect(() => mediagenWebhook({ secrets: NEW_SECRET, maxBodyBytes: 'lots', onEvent: () => {} })).toThrow(/Invalid body limit/);
    expect(() => mediagenWebhook({ secrets: NEW_SECRET, maxBodyBytes: 'lots', onEvent: () => {} })).toThrow(ConfigurationError);
  });

  it('defaults the secret to MEDIAGEN_WEBHOOK_SECRET, and answers 500 (retried) when there is none', async () => {
    const previous = process.env.MEDIAGEN_WEBHOOK_SECRET;
    try {
      delete process.env.MEDIAGEN_WEBHOOK_SECRET;
      const none = await serve(express5, (a) => a.post(PATH, mediagenWebhook({ onEvent: () => {} })));
      closers.push(none.close);
      expect((await deliver(none.origin + PATH, makePayload(), { secret: NEW_SECRET })).status).toBe(500);
      process.env.MEDIAGEN_WEBHOOK_SECRET = NEW_SECRET;
      const fromEnv = await serve(express5, (a) => a.post(PATH, mediagenWebhook({ onEvent: () => {} })));
      closers.push(fromEnv.close);
      expect((await deliver(fromEnv.origin + PATH, makePayload(), { secret: NEW_SECRET })).status).toBe(200);
    } finally {
      if (previous === undefined) delete process.env.MEDIAGEN_WEBHOOK_SECRET;
      else process.env.MEDIAGEN_WEBHOOK_SECRET = previous;
    }
  });
});

describe('odd requests', () => {
  it('a Host header that makes no URL still gets a verified answer', async () => {
    const hook = mediagenWebhook({ secrets: NEW_SECRET, onEvent: () => {} });
    const { origin, close } = await serve(express5, (a) => a.post(PATH, hook));
    closers.push(close);
    const raw = JSON.stringify(makePayload());
    const signature = await signWebhook(raw, NEW_SECRET);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        origin + PATH,
        { method: 'POST', headers: { host: 'bad host^', 'content-type': 'application/json', 'x-service-signature': signature } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(raw);
    });
    expect(status).toBe(200);
  });
});
