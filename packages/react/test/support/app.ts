import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gate, MediaGenClient, MemoryGateStore, signWebhook } from '@mediagen/core';
import { createGenerationLedger, type GenerationLedger, ledgerSource, MemoryGenerationStore } from '@mediagen/core/ledger';
import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler, type GenerationSource, type MediaGenHandlerOptions, queueGateStore } from '@mediagen/core/server';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';

export const KEY = 'svc_live_react';
export const SECRET = 'whsec_react';

/** The smallest source: submits in memory per owner, newest first. */
function memorySource(): GenerationSource {
  const entries: { owner: string | undefined; id: string }[] = [];
  return {
    record: ({ owner, submitted }) => void entries.unshift({ owner, id: submitted.generation_id }),
    get: (id, owner) => entries.find((e) => e.id === id && e.owner === owner),
    list: (owner, { limit }) => ({
      generations: entries
        .filter((e) => e.owner === owner)
        .slice(0, limit)
        .map((e) => ({ generation_id: e.id })),
    }),
  };
}

/**
 * An app as a user would build it: a Node server mounting `createMediaGenHandler` at `/api`
 * (the user named by a `uid` cookie it sets on first contact), a page at `/`, and the real
 * emulator behind it. `timeScale` 1000: generations finish only when `complete(id)` posts the
 * service's signed webhook; `deliverWebhooks`: the emulator completes them itself (scaled) and
 * delivers its own webhooks here. It counts the requests of each route and can cut every open
 * event stream.
 */
export async function startApp(
  init: {
    page?: string;
    timeScale?: number;
    deliverWebhooks?: boolean;
    /** The handler's options; a function of the app's origin for those that name it (an uploads store's `url`). */
    options?: Partial<MediaGenHandlerOptions> | ((origin: string) => Partial<MediaGenHandlerOptions>);
    /** The emulator fetches the app's own `http://127.0.0.1` input links (the uploads' store). */
    allowLoopbackInputs?: boolean;
    /**
     * The generation ledger as the source, its client behind a gate (the account's concurrency):
     * a submit past the limit waits in the gate unsent, and `queued()` counts the waits told.
     */
    ledger?: boolean;
  } = {},
) {
  const streams = new Set<ServerResponse>();
  const seen: { method: string; path: string; lastEventId: string | undefined; idempotencyKey: string | undefined; status?: number }[] = [];
  /** Each request's response, to tell when the handler has answered it. */
  const responses = new WeakMap<object, ServerResponse>();
  let refuseStreams = false;
  let cutSubmits = 0;
  let held: (() => void)[] | undefined;
  let handle: ReturnType<typeof createNodeHandler> | undefined;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const cookie = /(?:^|;\s*)uid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (path === '/' || path === '/app.js') {
      const headers: Record<string, string> = { 'content-type': path === '/' ? 'text/html' : 'text/javascript' };
      if (!cookie) headers['set-cookie'] = `uid=${crypto.randomUUID()}; Path=/; HttpOnly; SameSite=Lax`;
      const html = '<!doctype html><meta charset="utf-8"><title>MediaGen hooks</title><div id="root"></div><script src="/app.js"></script>';
      return res.writeHead(200, headers).end(path === '/' ? html : (init.page ?? ''));
    }
    const entry = {
      method: req.method ?? 'GET',
      path,
      lastEventId: req.headers['last-event-id'] as string | undefined,
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      status: undefined as number | undefined,
    };
    seen.push(entry);
    responses.set(entry, res);
    res.on('finish', () => (entry.status = res.statusCode));
    if (path.endsWith('/events')) {
      if (refuseStreams) {
        entry.status = 503;
        return res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' }).end('{"error":"TOO_MANY_STREAMS"}');
      }
      streams.add(res);
      res.on('close', () => streams.delete(res));
      if (held) return void held.push(() => void handle!(req, res));
    }
    if (entry.method === 'POST' && path === '/api/generations' && cutSubmits > 0) {
      cutSubmits--;
      // The handler submits (and the service bills) as usual; its answer is cut half-way.
      let cut = false;
      const write = res.write.bind(res) as (chunk: Uint8Array, done: () => void) => boolean;
      res.write = ((chunk: Uint8Array | string) => {
        if (cut) return true;
        cut = true;
        const bytes = Buffer.from(chunk);
        write(bytes.subarray(0, Math.max(1, bytes.length >> 1)), () => res.socket?.destroy());
        return true;
      }) as typeof res.write;
    }
    void handle!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const emulator: RunningEmulator = await startEmulator({
    port: 0,
    allowLoopbackInputs: init.allowLoopbackInputs ?? false,
    config: {
      timeScale: init.timeScale ?? 1000,
      accounts: [
        {
          id: 'acct_react',
          tier: 'ultimate',
          balance: 100_000,
          keys: [{ key: KEY }],
          webhooks: init.deliverWebhooks ? [{ url: `${origin}/api/webhooks/mediagen`, secret: SECRET }] : [],
        },
      ],
    },
  });
  const client = new MediaGenClient({
    apiKey: KEY,
    baseUrl: emulator.url,
    maxRetries: 1,
    ...(init.ledger ? { gate: new Gate({ store: queueGateStore(new MemoryGateStore()) }) } : {}),
  });
  let queued = 0;
  let ledger: GenerationLedger | undefined;
  if (init.ledger) {
    const create = client.generations.create.bind(client.generations);
    client.generations.create = ((params, options = {}) =>
      create(params, {
        ...options,
        onQueue: (wait) => {
          queued++;
          options.onQueue?.(wait); // the handler's own: it streams the place to the browser
        },
      })) as typeof client.generations.create;
    ledger = createGenerationLedger({ client, store: new MemoryGenerationStore() });
  }
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => /(?:^|;\s*)uid=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1],
    source: ledger ? ledgerSource(ledger) : memorySource(),
    webhook: { secrets: SECRET },
    onError: () => {},
    ...(typeof init.options === 'function' ? init.options(origin) : init.options),
  });
  handle = createNodeHandler(handler);

  return {
    origin,
    handler,
    client,
    emulator,
    /** Submits told they wait in the gate (with `ledger: true`). */
    queued: () => queued,
    /** Bills of the account: one reservation per generation the service accepted. */
    reserves: async () => (await emulator.accounts.get('acct_react')).ledger.filter((row) => row.type === 'reserve').length,
    /** Requests the app answered under /api, in order. */
    seen,
    /** Status reads of one generation (`GET /api/generations/:id`). */
    statusReads: (id: string) => seen.filter((r) => r.method === 'GET' && r.path === `/api/generations/${id}`).length,
    streamRequests: (id: string) => seen.filter((r) => r.path === `/api/generations/${id}/events`),
    /**
     * Stream requests of one generation the handler has answered (headers sent). The handler
     * answers a stream only once it follows the generation, so from then on no update is missed.
     */
    answeredStreams: (id: string) => seen.filter((r) => r.path === `/api/generations/${id}/events` && responses.get(r)?.headersSent).length,
    /** Cuts every open event stream's connection, as a proxy or a network change would. */
    cutStreams() {
      const open = [...streams];
      for (const res of open) res.socket?.destroy();
      return open.length;
    },
    openStreams: () => streams.size,
    /** New stream requests wait (unanswered) until the returned release. */
    holdStreams() {
      const queue: (() => void)[] = [];
      held = queue;
      return {
        waiting: () => queue.length,
        release() {
          held = undefined;
          for (const answer of queue) answer();
        },
      };
    },
    refuseStreams(on: boolean) {
      refuseStreams = on;
    },
    /** The next `count` submits are made, and their answers cut off half-way, as a dropped connection would. */
    cutSubmitAnswers(count: number) {
      cutSubmits = count;
    },
    /** What the service sends when the generation completes: its signed webhook, posted to the app. */
    async complete(id: string) {
      const body = JSON.stringify({
        generation_id: id,
        status: 'completed',
        model: 'image-fast',
        output_url: `${emulator.url}/api/v1/output/${id}.png`,
        output_urls: [`${emulator.url}/api/v1/output/${id}.png`],
        credits_charged: 4,
        duration_ms: 1200,
        completed_at: new Date().toISOString(),
      });
      const res = await fetch(`${origin}/api/webhooks/mediagen`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-event': 'generation.completed',
          'x-service-delivery-id': crypto.randomUUID(),
          'x-service-signature': await signWebhook(body, SECRET),
        },
        body,
      });
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    },
    async close() {
      await ledger?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await emulator.close();
    },
  };
}
export type App = Awaited<ReturnType<typeof startApp>>;

/** Submits as `uid` over HTTP; the generation id. */
export async function submitAs(app: App, uid: string, prompt = 'a lighthouse'): Promise<string> {
  const res = await fetch(`${app.origin}/api/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `uid=${uid}` },
    body: JSON.stringify({ model: 'image-fast', prompt }),
  });
  if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { generation_id: string }).generation_id;
}
