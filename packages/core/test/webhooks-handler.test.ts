import { describe, expect, it, vi } from 'vitest';
import { signWebhook, type WebhookEvent } from '../src/index';
import { createWebhookHandler, MemoryDedupeStore, type WebhookHandler, type WebhookHandlerOptions } from '../src/server';

type HandleWebhookOptions = WebhookHandlerOptions;
/** One receiver per options object, as an app makes one per endpoint. */
const receivers = new WeakMap<object, WebhookHandler>();
function handleWebhook(request: Request, opts: HandleWebhookOptions): Promise<Response> {
  let receiver = receivers.get(opts);
  if (!receiver) receivers.set(opts, (receiver = createWebhookHandler(opts)));
  return receiver(request);
}

const SECRET = 'whsec_handler';
let counter = 0;

function payload(overrides: Record<string, unknown> = {}) {
  return {
    generation_id: `gen-${++counter}`,
    status: 'completed',
    model: 'image-fast',
    output_url: 'http://127.0.0.1:4010/api/v1/output/x/1/sig/0/out.png',
    output_urls: ['http://127.0.0.1:4010/api/v1/output/x/1/sig/0/out.png'],
    credits_charged: 4,
    duration_ms: 10,
    completed_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

async function delivery(data: object, init: { secret?: string; signature?: string | null; event?: string; method?: string } = {}) {
  const body = JSON.stringify(data);
  const headers = new Headers({ 'content-type': 'application/json', 'x-service-delivery-id': crypto.randomUUID() });
  const signature = init.signature === undefined ? await signWebhook(body, init.secret ?? SECRET) : init.signature;
  if (signature !== null) headers.set('x-service-signature', signature);
  headers.set('x-service-event', init.event ?? `generation.${(data as { status: string }).status}`);
  return new Request('http://localhost/webhooks', { method: init.method ?? 'POST', headers, body });
}

function options(onEvent: HandleWebhookOptions['onEvent'], extra: Partial<HandleWebhookOptions> = {}): HandleWebhookOptions {
  return { secrets: SECRET, onEvent, dedupe: new MemoryDedupeStore(), ...extra };
}

function failed(data: Record<string, unknown>) {
  return {
    ...data,
    status: 'failed',
    output_url: null,
    output_urls: null,
    credits_charged: 0,
    error_code: 'unknown',
    error_message: 'x',
    retryable: false,
  };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A promise the test settles: a handler waits on it, so the test, not a clock, says when it ends. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** A memory store that tells the test when a delivery claims its event, or finds it in progress (and will wait). */
class WatchedStore extends MemoryDedupeStore {
  onClaimed: () => void = () => {};
  onInProgress: () => void = () => {};
  override claim(key: string, leaseMs: number) {
    const claim = super.claim(key, leaseMs);
    if (claim === 'claimed') this.onClaimed();
    if (claim === 'in_progress') this.onInProgress();
    return claim;
  }
}

describe('handleWebhook', () => {
  it('answers 200 and passes the typed event to onEvent', async () => {
    const seen: WebhookEvent[] = [];
    const data = payload();
    const res = await handleWebhook(
      await delivery(data),
      options((e) => void seen.push(e)),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: 'generation.completed', data });
    expect(seen[0]!.deliveryId).toMatch(/-/);
  });

  it('answers 4xx (terminal) for a bad, missing or foreign signature, without calling onEvent', async () => {
    const onEvent = vi.fn();
    const opts = options(onEvent);
    expect((await handleWebhook(await delivery(payload(), { signature: null }), opts)).status).toBe(401);
    expect((await handleWebhook(await delivery(payload(), { signature: 'sha256=' + 'a'.repeat(64) }), opts)).status).toBe(401);
    expect((await handleWebhook(await delivery(payload(), { secret: 'someone-else' }), opts)).status).toBe(401);
    expect((await handleWebhook(await delivery(payload(), { signature: 'garbage' }), opts)).status).toBe(401);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('answers 415 to a body that is not JSON by its content type, without calling onEvent', async () => {
    const onEvent = vi.fn();
    const body = JSON.stringify(payload());
    const signature = await signWebhook(body, SECRET);
    const send = (type: string | null) => {
      const headers = new Headers({ 'x-service-signature': signature });
      if (type !== null) headers.set('content-type', type);
      return handleWebhook(
        new Request('http://localhost/webhooks', { method: 'POST', headers, body }),
        options(onEvent, { dedupe: false }),
      );
    };
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', null]) {
      expect((await send(type)).status, String(type)).toBe(415);
    }
    expect(onEvent).not.toHaveBeenCalled();
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/cloudevents+json']) {
      expect((await send(type)).status, type).toBe(200);
    }
  });

  it('accepts a delivery signed with any configured secret', async () => {
    const res = await handleWebhook(
      await delivery(payload(), { secret: 'new' }),
      options(() => {}, { secrets: ['old', 'new'] }),
    );
    expect(res.status).toBe(200);
  });

  it('answers 500 (retried) for a body cut off, 400 for a non-JSON body and 413 above the size limit', async () => {
    const unreadable = new Request('http://localhost/w', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({ pull: (c) => c.error(new Error('socket hang up')) }),
      duplex: 'half',
    } as RequestInit);
    expect(
      (
        await handleWebhook(
          unreadable,
          options(() => {}),
        )
      ).status,
    ).toBe(500);

    const text = 'plain text';
    const notJson = new Request('http://localhost/w', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': await signWebhook(text, SECRET) },
      body: text,
    });
    expect(
      (
        await handleWebhook(
          notJson,
          options(() => {}),
        )
      ).status,
    ).toBe(400);

    const big = await delivery(payload({ pad: 'x'.repeat(5_000) }));
    expect(
      (
        await handleWebhook(
          big,
          options(() => {}, { maxBodyBytes: 1_000 }),
        )
      ).status,
    ).toBe(413);
    const streamed = new Request('http://localhost/w', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(500));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(
      (
        await handleWebhook(
          streamed,
          options(() => {}, { maxBodyBytes: 1_000 }),
        )
      ).status,
    ).toBe(413);
  });

  it('answers 405 to anything but POST and 500 when no secret is configured', async () => {
    expect(
      (
        await handleWebhook(
          new Request('http://localhost/w'),
          options(() => {}),
        )
      ).status,
    ).toBe(405);
    expect(
      (
        await handleWebhook(
          await delivery(payload()),
          options(() => {}, { secrets: [] }),
        )
      ).status,
    ).toBe(500);
  });

  it('answers 5xx when the handler throws, and the retry runs the handler again', async () => {
    const store = new MemoryDedupeStore();
    const errors: unknown[] = [];
    let calls = 0;
    const opts = options(
      () => {
        calls++;
        if (calls === 1) throw new Error('db down');
      },
      { dedupe: store, onError: (e) => errors.push(e) },
    );
    const data = payload();
    const first = await handleWebhook(await delivery(data), opts);
    expect(first.status).toBe(500);
    expect(await first.json()).toMatchObject({ error: 'WEBHOOK_HANDLER_FAILED' });
    expect(errors).toHaveLength(1);
    const retry = await handleWebhook(await delivery(data), opts);
    expect(retry.status).toBe(200);
    expect(calls).toBe(2);
  });

  it('de-duplicates on generation_id + event type, not on the delivery id', async () => {
    const onEvent = vi.fn();
    const opts = options(onEvent);
    const data = payload();
    const first = await handleWebhook(await delivery(data), opts);
    const again = await handleWebhook(await delivery(data), opts);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(onEvent).toHaveBeenCalledTimes(1);
    // Same generation, different event type: a different event.
    await handleWebhook(await delivery(failed(data)), opts);
    expect(onEvent).toHaveBeenCalledTimes(2);
  });

  it('two receivers in one process keep their own state: each runs its own handler once per event', async () => {
    const a = vi.fn();
    const b = vi.fn();
    // The default in-memory store belongs to each receiver, not to the process.
    const receiverA = createWebhookHandler({ secrets: SECRET, onEvent: a });
    const receiverB = createWebhookHandler({ secrets: SECRET, onEvent: b });
    const data = payload();
    for (const receiver of [receiverA, receiverB, receiverA, receiverB]) {
      expect((await receiver(await delivery(data))).status).toBe(200);
    }
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(1);
  });

  it('claimLeaseMs: a claim whose instance died lapses, and the next delivery runs the event elsewhere', async () => {
    const shared = new MemoryDedupeStore();
    const ran = vi.fn();
    // Instance A claims the event, then hangs for good (as a crashed process would): 503 at its deadline.
    const crashed = createWebhookHandler({
      secrets: SECRET,
      dedupe: shared,
      claimLeaseMs: 400,
      deadlineMs: 100,
      onEvent: () => new Promise(() => {}),
    });
    const data = payload();
    expect((await crashed(await delivery(data))).status).toBe(503);
    // Instance B, on the same store: the service's next attempt waits out the lease, then runs the event once.
    const healthy = createWebhookHandler({ secrets: SECRET, dedupe: shared, claimLeaseMs: 400, onEvent: ran });
    expect((await healthy(await delivery(data))).status).toBe(200);
    expect((await healthy(await delivery(data))).status).toBe(200);
    expect(ran).toHaveBeenCalledTimes(1);
    // With the default lease (5 min), the same crash holds the event past any retry: 503 until the deadline.
    const store = new MemoryDedupeStore();
    const again = payload();
    await createWebhookHandler({ secrets: SECRET, dedupe: store, deadlineMs: 100, onEvent: () => new Promise(() => {}) })(
      await delivery(again),
    );
    const other = createWebhookHandler({ secrets: SECRET, dedupe: store, deadlineMs: 600, onEvent: ran });
    expect((await other(await delivery(again))).status).toBe(503);
    expect(ran).toHaveBeenCalledTimes(1);
  });

  it('takes the type and the de-duplication key from the signed body; a contradicting header is refused', async () => {
    const onEvent = vi.fn();
    const receiver = createWebhookHandler({ secrets: SECRET, onEvent });
    const data = failed(payload());
    // A captured signed body replayed under other event headers: never run, never re-typed.
    for (const event of ['generation.completed', 'Generation.Failed', 'anything', 'generation.failed ']) {
      const res = await receiver(await delivery(data, { event }));
      if (event.trim() === 'generation.failed') expect(res.status).toBe(200);
      else {
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: 'WEBHOOK_EVENT_MISMATCH', message: expect.any(String), next: expect.any(String) });
      }
    }
    // No header at all: the body alone says what the event is.
    expect((await receiver(await delivery(data, { event: '' }))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(1);
    expect(onEvent.mock.calls[0]![0]).toMatchObject({ type: 'generation.failed', data: { status: 'failed', error_code: 'unknown' } });
  });

  it('acknowledges an event type added after this SDK without running the handler, publishing or reporting it', async () => {
    const onEvent = vi.fn();
    const onError = vi.fn();
    const published: unknown[] = [];
    const receiver = createWebhookHandler({ secrets: SECRET, onEvent, onError, events: { publish: (e) => void published.push(e) } });
    for (const event of ['', 'generation.archived', 'generation.completed']) {
      const res = await receiver(await delivery(payload({ status: 'archived' }), { event }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true, ignored: true });
    }
    expect(onEvent).not.toHaveBeenCalled();
    expect(published).toEqual([]);
    expect(onError).not.toHaveBeenCalled();
  });

  it('the deadline covers the body: a delivery whose body never ends is answered in time', async () => {
    const onEvent = vi.fn();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"generation_id":'));
        // …and nothing more, ever.
      },
    });
    const request = new Request('http://localhost/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
      body,
      duplex: 'half',
    } as RequestInit);
    // The body never ends: an answer at all is one given while it was still arriving.
    const res = await createWebhookHandler({ secrets: SECRET, onEvent, deadlineMs: 200 })(request);
    // 5xx, not 4xx: a 4xx would end the service's retry chain, losing a delivery the network slowed.
    expect(res.status).toBe(503);
    expect((await res.json()).error).toBe('WEBHOOK_BODY_TIMEOUT');
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('a stalled body from an async iterator (how Next hands a Node request to a route) is still answered at the deadline', async () => {
    // undici settles `cancel()` on such a body only after its pending read, which never ends here.
    async function* stalled() {
      yield new TextEncoder().encode('{"generation_id":');
      await new Promise(() => {});
    }
    const request = new Request('http://localhost/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
      body: stalled() as unknown as BodyInit,
      duplex: 'half',
    } as RequestInit);
    const res = await createWebhookHandler({ secrets: SECRET, onEvent: vi.fn(), deadlineMs: 50 })(request);
    expect(res.status).toBe(503);
    expect((await res.json()).error).toBe('WEBHOOK_BODY_TIMEOUT');
  });

  it('publishes each verified event to `events` (duplicates too) and hands late work to `waitUntil`', async () => {
    const published: WebhookEvent[] = [];
    const kept: Promise<unknown>[] = [];
    const receiver = createWebhookHandler({
      secrets: SECRET,
      onEvent: () => {},
      events: { publish: (event) => void published.push(event) },
      waitUntil: (promise) => void kept.push(promise),
    });
    const data = payload();
    await receiver(await delivery(data));
    await receiver(await delivery(data));
    await Promise.all(kept);
    expect(published.map((e) => e.data.generation_id)).toEqual([data.generation_id, data.generation_id]);
    // The handler's outcome and each publish were handed over.
    expect(kept.length).toBeGreaterThanOrEqual(3);
  });

  it('a bad signature is not published', async () => {
    const publish = vi.fn();
    const res = await createWebhookHandler({ secrets: SECRET, onEvent: () => {}, events: { publish } })(
      await delivery(payload(), { secret: 'someone-else' }),
    );
    expect(res.status).toBe(401);
    expect(publish).not.toHaveBeenCalled();
  });

  it('runs the handler once for concurrent duplicates, and both answer 200', async () => {
    let calls = 0;
    const opts = options(async () => {
      calls++;
      await tick(50);
    });
    const data = payload();
    const responses = await Promise.all([1, 2, 3].map(async () => handleWebhook(await delivery(data), opts)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(calls).toBe(1);
  });

  it('runs a concurrent duplicate itself when the original fails', async () => {
    // The duplicate is sent once the original holds the claim, and the original fails only once
    // the duplicate has found it in progress (and waits on it).
    const store = new WatchedStore();
    const originalClaimed = gate();
    const duplicateWaits = gate();
    store.onClaimed = originalClaimed.open;
    store.onInProgress = duplicateWaits.open;
    let calls = 0;
    const opts = options(
      async () => {
        calls++;
        if (calls === 1) {
          await duplicateWaits.opened;
          throw new Error('first fails');
        }
      },
      { dedupe: store },
    );
    const data = payload();
    const original = handleWebhook(await delivery(data), opts);
    await originalClaimed.opened;
    const duplicate = handleWebhook(await delivery(data), opts);
    const [a, b] = await Promise.all([original, duplicate]);
    expect(a.status).toBe(500);
    expect(b.status).toBe(200);
    expect(calls).toBe(2);
  });

  it('at the deadline answers 5xx and leaves the handler running; the retry then sees it done', async () => {
    let finished = false;
    const handler = gate();
    // The handler's outcome (it marks the event seen) is handed to waitUntil: awaited below.
    const outcomes: Promise<unknown>[] = [];
    const opts = options(
      async () => {
        await handler.opened;
        finished = true;
      },
      { deadlineMs: 40, waitUntil: (promise) => void outcomes.push(promise) },
    );
    const data = payload();
    const first = await handleWebhook(await delivery(data), opts);
    expect(first.status).toBe(503);
    expect(await first.json()).toMatchObject({ error: 'WEBHOOK_HANDLER_TIMEOUT' });
    expect(finished).toBe(false);
    // A retry while it still runs waits up to its own deadline, then answers 5xx again.
    const second = await handleWebhook(await delivery(data), opts);
    expect(second.status).toBe(503);
    expect(finished).toBe(false);
    handler.open();
    await Promise.all(outcomes);
    expect(finished).toBe(true);
    const third = await handleWebhook(await delivery(data), opts);
    expect(third.status).toBe(200);
    expect(await third.json()).toEqual({ received: true, duplicate: true });
  });

  it('a retry arriving while the original runs answers 200 once the original completes in time', async () => {
    // The original ends when the retry has found it in progress: within the retry's deadline,
    // which (1 s) only has to outlast the retry's own signature check.
    const store = new WatchedStore();
    const retryWaits = gate();
    store.onInProgress = retryWaits.open;
    let calls = 0;
    const opts = options(
      async () => {
        calls++;
        await retryWaits.opened;
      },
      { deadlineMs: 1_000, dedupe: store },
    );
    const data = payload();
    const first = await handleWebhook(await delivery(data), opts);
    expect(first.status).toBe(503);
    const retry = await handleWebhook(await delivery(data), opts);
    expect(retry.status).toBe(200);
    expect(calls).toBe(1);
  });

  it('answers 200 as soon as the handler acknowledges (handed over), while it goes on', async () => {
    let done = false;
    const work = gate();
    const opts = options(
      async (_event, ctx) => {
        ctx.acknowledge();
        await work.opened;
        done = true;
      },
      { deadlineMs: 30 },
    );
    const data = payload();
    const res = await handleWebhook(await delivery(data), opts);
    expect(res.status).toBe(200);
    expect(done).toBe(false);
    expect(await (await handleWebhook(await delivery(data), opts)).json()).toEqual({ received: true, duplicate: true });
    work.open();
  });

  it('answers 500 when the dedupe store fails (so the service retries)', async () => {
    const broken = { claim: () => Promise.reject(new Error('redis down')), complete: () => {}, release: () => {} };
    const res = await handleWebhook(
      await delivery(payload()),
      options(() => {}, { dedupe: broken }),
    );
    expect(res.status).toBe(500);
  });

  it('runs every delivery when de-duplication is off', async () => {
    const onEvent = vi.fn();
    const data = payload();
    await handleWebhook(await delivery(data), options(onEvent, { dedupe: false }));
    await handleWebhook(await delivery(data), options(onEvent, { dedupe: false }));
    expect(onEvent).toHaveBeenCalledTimes(2);
  });
});

describe('MemoryDedupeStore', () => {
  it('claims, reports in_progress and seen, releases, expires and stays bounded', () => {
    let now = 0;
    const store = new MemoryDedupeStore({ maxEntries: 3, now: () => now });
    expect(store.claim('a', 100)).toBe('claimed');
    expect(store.claim('a', 100)).toBe('in_progress');
    store.release('a');
    expect(store.claim('a', 100)).toBe('claimed');
    store.complete('a', 1_000);
    expect(store.claim('a', 100)).toBe('seen');
    now = 1_001;
    expect(store.claim('a', 100)).toBe('claimed');
    for (const k of ['b', 'c', 'd', 'e']) store.claim(k, 100);
    expect(store.size).toBe(3);
    expect(store.claim('a', 100)).toBe('claimed'); // evicted as least recently used
  });

  it('expires a lapsed in-progress claim (a crashed holder)', () => {
    let now = 0;
    const store = new MemoryDedupeStore({ now: () => now });
    store.claim('k', 50);
    now = 51;
    expect(store.claim('k', 50)).toBe('claimed');
  });
});

describe('createWebhookHandler secrets from the environment', () => {
  it('reads MEDIAGEN_WEBHOOK_SECRET per delivery, comma-separated for a rotation', async () => {
    const onEvent = vi.fn();
    const receiver = createWebhookHandler({ onEvent });
    const saved = process.env.MEDIAGEN_WEBHOOK_SECRET;
    try {
      process.env.MEDIAGEN_WEBHOOK_SECRET = 'whsec_old, whsec_new';
      expect((await receiver(await delivery(payload(), { secret: 'whsec_new' }))).status).toBe(200);
      expect((await receiver(await delivery(payload(), { secret: 'whsec_old' }))).status).toBe(200);
      expect((await receiver(await delivery(payload(), { secret: 'whsec_other' }))).status).toBe(401);
      delete process.env.MEDIAGEN_WEBHOOK_SECRET;
      // No secret anywhere: 500, so the service keeps the delivery alive until it is configured.
      expect((await receiver(await delivery(payload(), { secret: 'whsec_new' }))).status).toBe(500);
      expect(onEvent).toHaveBeenCalledTimes(2);
    } finally {
      if (saved === undefined) delete process.env.MEDIAGEN_WEBHOOK_SECRET;
      else process.env.MEDIAGEN_WEBHOOK_SECRET = saved;
    }
  });
});
