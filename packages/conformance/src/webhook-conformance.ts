import { signWebhook, type WebhookEvent } from '@mediagen/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { deliver, deliverByNode, makePayload, sendUnfinishedBody } from './delivery.js';

/** What the suite asks an adapter to serve: its webhook receiver, configured with these options. */
export interface WebhookAdapterOptions {
  secrets: string[];
  onEvent(event: WebhookEvent): unknown;
  /** Largest body, in bytes (the adapters' `maxBodyBytes`). */
  maxBodyBytes: number;
}

export interface StartedAdapter {
  /** Full URL of the webhook route. */
  url: string;
  close(): Promise<void> | void;
}

export interface WebhookConformanceTarget {
  /** Shown in the test names, e.g. "express 5". */
  name: string;
  /** Starts a real HTTP server with the adapter's receiver on a free port. */
  start(options: WebhookAdapterOptions): Promise<StartedAdapter>;
  /**
   * True when the framework reads the whole body before the receiver runs (`express.raw()`,
   * NestJS `rawBody: true`): the receiver's deadline cannot cover a body it never reads, so
   * the slow-body case is the framework's server timeouts to bound, and is skipped here.
   */
  frameworkReadsBody?: boolean;
}

export const OLD_SECRET = 'whsec_conformance_old';
export const NEW_SECRET = 'whsec_conformance_new';
export const LIMIT = 64 * 1024;
/** How long the service waits for a receiver's answer before it counts the attempt failed (spec: Events, rule 2). */
const SERVICE_WINDOW_MS = 5_000;
/** Of that window, what a receiver's deadline must leave for the answer's way back to the service. */
const WAY_BACK_MS = 500;
/** A wait on the real clock, kept from before any check fakes the global timers. */
const realSetTimeout = globalThis.setTimeout;
const realSleep = (ms: number) => new Promise<void>((resolve) => realSetTimeout(resolve, ms));

/**
 * The webhook behaviour every adapter must have (spec: Events, receiver rules), over real HTTP.
 * One call per adapter and framework version: `describeWebhookConformance({ name, start })`.
 */
export function describeWebhookConformance(target: WebhookConformanceTarget): void {
  describe(`webhook conformance: ${target.name}`, () => {
    let server: StartedAdapter;
    let events: WebhookEvent[] = [];
    let behaviour: (event: WebhookEvent) => unknown = () => {};
    const handled = (id: string) => events.filter((e) => e.data.generation_id === id);

    beforeAll(async () => {
      server = await target.start({
        secrets: [OLD_SECRET, NEW_SECRET],
        maxBodyBytes: LIMIT,
        onEvent: async (event) => {
          await behaviour(event);
          events.push(event);
        },
      });
    });
    afterAll(async () => server?.close());
    beforeEach(() => {
      events = [];
      behaviour = () => {};
    });

    it('a valid delivery is answered 200 and handled once, with the typed event', async () => {
      const payload = makePayload();
      const res = await deliver(server.url, payload, { secret: NEW_SECRET });
      expect(res.status).toBe(200);
      expect(handled(payload.generation_id)).toHaveLength(1);
      const [event] = events;
      expect(event!.type).toBe('generation.completed');
      expect(event!.data).toEqual(payload);
      expect(typeof event!.deliveryId).toBe('string');
    });

    it('a failed-generation event is delivered with its error fields', async () => {
      const payload = makePayload({
        status: 'failed',
        output_url: null,
        output_urls: null,
        credits_charged: 0,
        error_code: 'model_unavailable',
        error_message: 'busy',
        retryable: true,
      });
      const res = await deliver(server.url, payload, { secret: NEW_SECRET });
      expect(res.status).toBe(200);
      expect(events.map((e) => [e.type, e.data.error_code])).toEqual([['generation.failed', 'model_unavailable']]);
    });

    it('a duplicate delivery (new delivery id, same generation) is answered 2xx and not handled again', async () => {
      const payload = makePayload();
      const first = await deliver(server.url, payload, { secret: NEW_SECRET });
      const second = await deliver(server.url, payload, { secret: NEW_SECRET });
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(handled(payload.generation_id)).toHaveLength(1);
    });

    it('concurrent duplicates run the handler once', async () => {
      behaviour = () => new Promise((resolve) => setTimeout(resolve, 150));
      const payload = makePayload();
      const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(server.url, payload, { secret: NEW_SECRET })));
      for (const res of answers) expect(res.status).toBeLessThan(300);
      expect(handled(payload.generation_id)).toHaveLength(1);
    });

    it('a bad signature gets a 4xx (terminal) and the handler never runs', async () => {
      const payload = makePayload();
      const res = await deliver(server.url, payload, { secret: 'whsec_someone_else' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect((await res.json()).error).toMatch(/SIGNATURE/);
      expect(events).toHaveLength(0);
    });

    it('a body changed after signing is refused', async () => {
      const payload = makePayload();
      const signed = JSON.stringify(payload);
      const res = await deliver(server.url, signed.replace('"credits_charged":4', '"credits_charged":0'), {
        secret: null,
        signature: await signatureOf(signed),
      });
      expect(res.status).toBe(401);
      expect(events).toHaveLength(0);
    });

    it('a missing signature gets a 4xx and the handler never runs', async () => {
      const res = await deliver(server.url, makePayload(), { secret: null });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(events).toHaveLength(0);
    });

    it('during a rotation both the old and the new secret are accepted', async () => {
      const a = makePayload();
      const b = makePayload();
      expect((await deliver(server.url, a, { secret: OLD_SECRET })).status).toBe(200);
      expect((await deliver(server.url, b, { secret: NEW_SECRET })).status).toBe(200);
      expect(events.map((e) => e.data.generation_id)).toEqual([a.generation_id, b.generation_id]);
    });

    it('a handler that throws gets a 5xx, and the retry runs it again', async () => {
      let calls = 0;
      behaviour = () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
      };
      const payload = makePayload();
      const first = await deliver(server.url, payload, { secret: NEW_SECRET });
      expect(first.status).toBeGreaterThanOrEqual(500);
      const retry = await deliver(server.url, payload, { secret: NEW_SECRET });
      expect(retry.status).toBe(200);
      expect(calls).toBe(2);
      expect(handled(payload.generation_id)).toHaveLength(1);
      const again = await deliver(server.url, payload, { secret: NEW_SECRET });
      expect(again.status).toBe(200);
      expect(calls).toBe(2);
    });

    it('an oversized body gets 413 and the handler never runs', async () => {
      const payload = makePayload({ padding: 'x'.repeat(LIMIT * 4) });
      const res = await deliver(server.url, payload, { secret: NEW_SECRET });
      expect(res.status).toBe(413);
      expect(events).toHaveLength(0);
      // The refused body does not break the connection for the next delivery.
      expect((await deliver(server.url, makePayload(), { secret: NEW_SECRET })).status).toBe(200);
    });

    it('an oversized body sent without Content-Length (chunked) gets 413 too', async () => {
      const raw = JSON.stringify(makePayload({ padding: 'x'.repeat(LIMIT * 4) }));
      const bytes = new TextEncoder().encode(raw);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 16 * 1024) controller.enqueue(bytes.slice(i, i + 16 * 1024));
          controller.close();
        },
      });
      const res = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-signature': await signatureOf(raw),
          'x-service-event': 'generation.completed',
        },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(events).toHaveLength(0);
    });

    it('a wrong content type gets 415 or 400 and the handler never runs', async () => {
      const res = await deliver(server.url, makePayload(), { secret: NEW_SECRET, contentType: 'text/plain' });
      expect([400, 415]).toContain(res.status);
      expect(events).toHaveLength(0);
    });

    it('a signed body that is not JSON gets 400 and the handler never runs', async () => {
      const res = await deliver(server.url, '{"generation_id": oops', { secret: NEW_SECRET });
      expect(res.status).toBe(400);
      expect(events).toHaveLength(0);
    });

    it('the event header may only repeat the signed body: a replay under another type is refused and runs nothing', async () => {
      const payload = makePayload({
        status: 'failed',
        output_url: null,
        output_urls: null,
        credits_charged: 0,
        error_code: 'unknown',
        error_message: 'x',
        retryable: false,
      });
      for (const event of ['generation.completed', 'Generation.Failed', 'anything', 'generation.upscaled']) {
        const res = await deliver(server.url, payload, { secret: NEW_SECRET, event });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: 'WEBHOOK_EVENT_MISMATCH', message: expect.any(String) });
      }
      expect(events).toHaveLength(0);
      expect((await deliver(server.url, payload, { secret: NEW_SECRET })).status).toBe(200);
      expect(events.map((e) => [e.type, e.data.status])).toEqual([['generation.failed', 'failed']]);
    });

    it('an event of a type added after this SDK is acknowledged (2xx) and not handled', async () => {
      const payload = makePayload({ status: 'upscaled' });
      const res = await deliver(server.url, payload, { secret: NEW_SECRET, event: 'generation.upscaled' });
      expect(res.status).toBe(200);
      expect(events).toHaveLength(0);
    });

    it('a second receiver in the same process keeps its own de-duplication state', async () => {
      const other: WebhookEvent[] = [];
      const second = await target.start({ secrets: [NEW_SECRET], maxBodyBytes: LIMIT, onEvent: (event) => void other.push(event) });
      try {
        const payload = makePayload();
        for (const url of [server.url, second.url, server.url, second.url]) {
          expect((await deliver(url, payload, { secret: NEW_SECRET })).status).toBe(200);
        }
        expect(handled(payload.generation_id)).toHaveLength(1);
        expect(other.map((e) => e.data.generation_id)).toEqual([payload.generation_id]);
      } finally {
        await second.close();
      }
    });

    it.skipIf(target.frameworkReadsBody)(
      "a body that never finishes is answered by the receiver's deadline: 503 WEBHOOK_BODY_TIMEOUT (retried), and runs nothing",
      async () => {
        // The body never ends, so any answer is one given while it was still arriving; the code
        // says it came from the receiver's deadline (the same deadline as the handler's, whose
        // bound the next check proves), not from a server timeout or a closed connection.
        const answer = await sendUnfinishedBody(server.url);
        expect(answer.status).toBe(503);
        expect(answer.body?.error).toBe('WEBHOOK_BODY_TIMEOUT');
        expect(events).toHaveLength(0);
      },
      30_000,
    );

    it(`a handler that never finishes is answered 5xx (retried) by the receiver's deadline, due inside the service's ${SERVICE_WINDOW_MS / 1_000} s window`, async () => {
      // No wall clock: the timers are faked before the delivery is sent, so the receiver's
      // deadline runs on a clock this test moves. Once the handler has been called, moved to the
      // service's window less the answer's way back, the answer must come; it can only come
      // from that timer. (The deadline counts from the delivery's arrival: time spent before
      // the handler only brings it nearer, never lets a late one pass.)
      let release: (() => void) | undefined;
      let called = false;
      behaviour = () => {
        called = true;
        return new Promise<void>((resolve) => (release = resolve));
      };
      let answered = false;
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        const answer = deliverByNode(server.url, makePayload(), NEW_SECRET).finally(() => (answered = true));
        try {
          while (!called && !answered) await realSleep(5);
          expect(called, 'the handler was called').toBe(true);
          await vi.advanceTimersByTimeAsync(SERVICE_WINDOW_MS - WAY_BACK_MS);
        } finally {
          vi.useRealTimers();
        }
        const res = await answer;
        expect(res.status).toBe(503);
        expect(res.body?.error).toBe('WEBHOOK_HANDLER_TIMEOUT');
        expect(events).toHaveLength(0);
      } finally {
        vi.useRealTimers();
        release?.();
        // Lets the released handler finish (and record its event) before the next check resets the list.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }, 30_000);
  });
}

function signatureOf(body: string): Promise<string> {
  return signWebhook(body, NEW_SECRET);
}
