import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import type { MediaGenHandlerOptions } from '@mediagen/core/server';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliver, makePayload } from './delivery.js';
import { memorySource } from './memory-source.js';
import { suiteUploads, uploadCases } from './route-uploads.js';

/** The handler options the suite asks an adapter to mount; `basePath` is `/api`, where the adapter serves them. */
export type RouteAdapterOptions = MediaGenHandlerOptions<unknown> & { basePath: string };

export interface StartedRoutes {
  /** The origin the app listens on (`http://127.0.0.1:PORT`); the routes are under `/api`. */
  origin: string;
  close(): Promise<void> | void;
}

export interface RouteConformanceTarget {
  /** Shown in the test names, e.g. "express 5". */
  name: string;
  /** Starts a real HTTP server with the adapter's mount of `createMediaGenHandler(options)` at `/api`. */
  start(options: RouteAdapterOptions): Promise<StartedRoutes>;
  /** Whether the app's source can cancel (the generation ledger's does): then `POST /generations/:id/cancel` is checked to stop, else to answer 404. */
  cancels?: boolean;
}

export const ROUTE_SECRET = 'whsec_route_conformance';
export const ALLOWED_ORIGIN = 'https://app.example';
const KEY = 'svc_live_route_conformance';
const USER_COOKIE = 'conformance_user';
const MAX_BODY = 8 * 1024;

/** The user a request comes from: the stand-in for an app's session cookie. */
/** A JSON answer, its fields read as the tests need them. */
type Body = Record<string, unknown> & { generation_id?: string; generations?: { generation_id: string }[] };

const identify = (request: Request) => new RegExp(`(?:^|;\\s*)${USER_COOKIE}=([^;]+)`).exec(request.headers.get('cookie') ?? '')?.[1];

/**
 * The app routes every adapter serves (`createMediaGenHandler` mounted at `/api`), against the
 * real emulator over real HTTP: the same requests give the same statuses and bodies whatever the
 * framework. One call per adapter setup: `describeRouteConformance({ name, start })`.
 */
export function describeRouteConformance(target: RouteConformanceTarget): void {
  describe(`route conformance: ${target.name}`, () => {
    let emulator: RunningEmulator;
    let client: MediaGenClient;
    let app: StartedRoutes;
    let source: ReturnType<typeof memorySource>;
    let uploads: Awaited<ReturnType<typeof suiteUploads>>;
    let store: ReturnType<typeof uploads.at>;
    const submitted: string[] = [];
    const events: WebhookEvent[] = [];

    const options = (extra: Partial<RouteAdapterOptions> = {}): RouteAdapterOptions => ({
      client,
      basePath: '/api',
      identify,
      source,
      maxBodyBytes: MAX_BODY,
      onSubmitted: (s: { generation_id: string }) => void submitted.push(s.generation_id),
      onError: () => {},
      cors: { origins: [ALLOWED_ORIGIN] },
      webhook: { secrets: ROUTE_SECRET, onEvent: (event: WebhookEvent) => void events.push(event) },
      uploads: uploads.options,
      ...extra,
    });

    beforeAll(async () => {
      emulator = await startEmulator({
        port: 0,
        // The upload cases' inputs are served by the app itself, on 127.0.0.1.
        allowLoopbackInputs: true,
        config: { timeScale: 0.001, accounts: [{ id: 'acct_routes', tier: 'pro', balance: 15_000, keys: [{ key: KEY }] }] },
      });
      client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
      source = memorySource();
      uploads = await suiteUploads();
      app = await target.start(options());
      store = uploads.at(app.origin);
    });
    afterAll(async () => {
      await app?.close();
      await emulator?.close();
      await uploads?.close();
    });
    beforeEach(() => {
      submitted.length = 0;
      events.length = 0;
    });

    const call = async (method: string, path: string, init: { user?: string; body?: BodyInit; headers?: Record<string, string> } = {}) => {
      const headers: Record<string, string> = { ...init.headers };
      if (init.user) headers.cookie = `${USER_COOKIE}=${init.user}`;
      const res = await fetch(`${app.origin}/api${path}`, { method, headers, body: init.body });
      const text = await res.text();
      expect(text).not.toContain(KEY);
      return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as Body) : undefined };
    };
    const submitAs = (user: string | undefined, params: unknown, headers: Record<string, string> = {}) =>
      call('POST', '/generations', { user, body: JSON.stringify(params), headers: { 'content-type': 'application/json', ...headers } });
    const balance = async () => (await client.credits.get()).balance;
    const expectErrorShape = (body: Body | undefined, code: string) =>
      expect(body).toMatchObject({
        error: code,
        message: expect.any(String),
        next: expect.any(String),
        request_id: expect.toSatisfy((v) => v === null || typeof v === 'string'),
      });

    it('submits JSON: 202 with the generation, onSubmitted once', async () => {
      const res = await submitAs('ada', { model: 'image-fast', prompt: 'a red kite' });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({
        generation_id: expect.any(String),
        status: 'pending',
        model: 'image-fast',
        request_id: expect.stringMatching(/^req_/),
      });
      expect(submitted).toEqual([res.body!.generation_id]);
    });

    it('refuses form, text and multipart bodies with 422 INVALID_BODY, unread and unbilled', async () => {
      const before = await balance();
      const multipart = new FormData();
      multipart.set('model', 'image-fast');
      multipart.set('prompt', 'x');
      const posts: [string, BodyInit, Record<string, string>][] = [
        ['/generations', 'model=image-fast&prompt=x', { 'content-type': 'application/x-www-form-urlencoded' }],
        ['/generations', '{"model":"image-fast","prompt":"x"}', { 'content-type': 'text/plain' }],
        ['/generations', multipart, {}],
        ['/estimate', '{"model":"image-fast","prompt":"x"}', { 'content-type': 'text/plain' }],
      ];
      for (const [path, body, headers] of posts) {
        const res = await call('POST', path, { user: 'ada', body, headers });
        expect([path, res.status]).toEqual([path, 422]);
        expectErrorShape(res.body, 'INVALID_BODY');
        expect(res.body!.details).toEqual({ field: 'Content-Type' });
      }
      expect(submitted).toEqual([]);
      expect(await balance()).toBe(before);
    });

    it('refuses a bad Idempotency-Key (Latin-1, over-long, control characters) with 422 naming the header', async () => {
      const before = await balance();
      for (const key of ['caf\u00e9', 'k'.repeat(256), 'tab\there']) {
        const res = await submitAs('ada', { model: 'image-fast', prompt: 'x' }, { 'idempotency-key': key });
        expect([key.slice(0, 8), res.status]).toEqual([key.slice(0, 8), 422]);
        expectErrorShape(res.body, 'INVALID_BODY');
        expect(res.body!.details).toEqual({ field: 'Idempotency-Key' });
      }
      expect(await balance()).toBe(before);
    });

    it('a replay with the same key answers the same generation, runs onSubmitted once; another user with that key gets their own', async () => {
      const key = `click-${crypto.randomUUID()}`;
      const first = await submitAs('ada', { model: 'image-fast', prompt: 'once' }, { 'idempotency-key': key });
      const replay = await submitAs('ada', { model: 'image-fast', prompt: 'once' }, { 'idempotency-key': key });
      expect([first.status, replay.status]).toEqual([202, 202]);
      expect(replay.body!.generation_id).toBe(first.body!.generation_id);
      expect(submitted).toEqual([first.body!.generation_id]);
      const other = await submitAs('bob', { model: 'image-fast', prompt: 'once' }, { 'idempotency-key': key });
      expect(other.status).toBe(202);
      expect(other.body!.generation_id).not.toBe(first.body!.generation_id);
    });

    it('reads, lists and streams only the user’s own generations: another user gets 404, no user 401 USER_UNKNOWN', async () => {
      const mine = await submitAs('ada', { model: 'image-fast', prompt: 'mine' });
      const id = mine.body!.generation_id!;
      const own = await call('GET', `/generations/${id}`, { user: 'ada' });
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ generation_id: id, model: 'image-fast' });
      const list = await call('GET', '/generations', { user: 'ada' });
      expect(list.status).toBe(200);
      expect(list.body!.generations!.map((g) => g.generation_id)).toContain(id);
      for (const path of [`/generations/${id}`, `/generations/${id}/events`]) {
        const res = await call('GET', path, { user: 'mallory' });
        expect([path, res.status]).toEqual([path, 404]);
        expectErrorShape(res.body, 'NOT_FOUND');
      }
      const theirs = await call('GET', '/generations', { user: 'mallory' });
      expect(theirs.body!.generations!.map((g) => g.generation_id)).not.toContain(id);
      // No user named (the session cookie never set): refused, never served as one shared user.
      for (const path of [`/generations/${id}`, `/generations/${id}/events`, '/generations', '/generations/events']) {
        const res = await call('GET', path, {});
        expect([path, res.status]).toEqual([path, 401]);
        expectErrorShape(res.body, 'USER_UNKNOWN');
      }
      const anonymousSubmit = await submitAs(undefined, { model: 'image-fast', prompt: 'nobody' });
      expect(anonymousSubmit.status).toBe(401);
      expectErrorShape(anonymousSubmit.body, 'USER_UNKNOWN');
      const unknown = await call('GET', '/generations/00000000-0000-4000-8000-000000000000', { user: 'ada' });
      expect(unknown.status).toBe(404);
      expectErrorShape(unknown.body, 'NOT_FOUND');
      // Deliberately indistinguishable (spec): another user's id reads exactly like one that does not exist.
      expect((await call('GET', `/generations/${id}`, { user: 'mallory' })).body).toEqual(unknown.body);
    });

    it('cancel: your own sent generation goes on and is billed (charged true), by id or by your key; someone else’s is 404', async () => {
      if (!target.cancels) {
        // Not one of the handler's routes then (`handler.route()` says so): an adapter that passes
        // such paths on to the app's own routes (Hono's middleware, Nest's router) answers the app's 404.
        const res = await fetch(`${app.origin}/api/generations/00000000-0000-4000-8000-000000000000/cancel`, {
          method: 'POST',
          headers: { cookie: `${USER_COOKIE}=ada` },
        });
        // (Its body is the framework's: Nest's own JSON 404, Hono's text.)
        await res.arrayBuffer();
        expect(res.status).toBe(404);
        return;
      }
      const reserved = async () => (await emulator.accounts.get('acct_routes')).ledger.filter((row) => row.type === 'reserve').length;
      const before = await reserved();
      // (An unsent intent stopped, charged false: core's handler-cancel test, with the client's gate holding it.)
      // Sent and accepted: it goes on and is billed, whatever the cancel says of following it.
      const key = crypto.randomUUID();
      const sent = await submitAs('ada', { model: 'image-fast', prompt: 'sent' }, { 'idempotency-key': key });
      const id = sent.body!.generation_id!;
      expect((await call('POST', `/generations/${id}/cancel`, { user: 'mallory' })).status).toBe(404);
      const after = await call('POST', `/generations/${id}/cancel`, { user: 'ada' });
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({ outcome: expect.stringMatching(/^(abandoned|finished)$/), charged: true });
      expect((await call('POST', `/generations/${key}/cancel`, { user: 'mallory' })).status).toBe(404);
      expect((await call('POST', `/generations/${key}/cancel`, { user: 'ada' })).body).toMatchObject({ charged: true });
      expect(await reserved()).toBe(before + 1);
    });

    it('streams the generation as server-sent events until it is terminal', async () => {
      const { body } = await submitAs('ada', { model: 'image-fast', prompt: 'stream' });
      const res = await fetch(`${app.origin}/api/generations/${body!.generation_id}/events`, { headers: { cookie: `${USER_COOKIE}=ada` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const statuses = (await res.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)).status as string);
      expect(statuses.at(-1)).toBe('completed');
      expect(new Set(statuses).size).toBe(statuses.length);
    });

    it('answers credits and estimates (nothing charged)', async () => {
      const credits = await call('GET', '/credits', { user: 'ada' });
      expect(credits.status).toBe(200);
      expect(credits.body).toMatchObject({ balance: expect.any(Number), tier: 'pro' });
      const before = await balance();
      const estimate = await call('POST', '/estimate', {
        user: 'ada',
        body: JSON.stringify({ model: 'image-fast', prompt: 'x' }),
        headers: { 'content-type': 'application/json' },
      });
      expect(estimate.status).toBe(200);
      expect(await balance()).toBe(before);
    });

    it('receives signed webhooks (200, onEvent once) and refuses unsigned ones (401)', async () => {
      const payload = makePayload();
      const signed = await deliver(`${app.origin}/api/webhooks/mediagen`, payload, { secret: ROUTE_SECRET });
      expect(signed.status).toBe(200);
      expect(events.map((e) => e.data.generation_id)).toEqual([payload.generation_id]);
      const unsigned = await deliver(`${app.origin}/api/webhooks/mediagen`, makePayload(), { secret: null });
      expect(unsigned.status).toBe(401);
      expectErrorShape((await unsigned.json()) as Body, 'WEBHOOK_SIGNATURE_MISSING');
      expect(events).toHaveLength(1);
    });

    it('sends CORS headers only to allowlisted origins, and none at all without an allowlist', async () => {
      const fromOrigin = (origin: string, method = 'GET') =>
        fetch(`${app.origin}/api/credits`, { method, headers: { origin, 'access-control-request-method': 'GET' } });
      const allowed = await fromOrigin(ALLOWED_ORIGIN);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
      const preflight = await fromOrigin(ALLOWED_ORIGIN, 'OPTIONS');
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-headers')).toContain('idempotency-key');
      const corsHeaders = (res: Response) => [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
      expect(corsHeaders(await fromOrigin('https://evil.example'))).toEqual([]);

      const { cors: _none, ...rest } = options();
      const plain = await target.start(rest as RouteAdapterOptions);
      try {
        const res = await fetch(`${plain.origin}/api/credits`, { headers: { origin: ALLOWED_ORIGIN } });
        expect(res.status).toBe(200);
        expect(corsHeaders(res)).toEqual([]);
        const post = await fetch(`${plain.origin}/api/generations`, {
          method: 'POST',
          headers: { origin: 'https://evil.example', 'content-type': 'text/plain', cookie: `${USER_COOKIE}=ada` },
          body: '{"model":"image-fast","prompt":"x"}',
        });
        expect(post.status).toBe(422);
        expect(corsHeaders(post)).toEqual([]);
      } finally {
        await plain.close();
      }
    });

    it('answers refusals in the contract shape: too large 413, not JSON 422, wrong method 405, unknown id 404', async () => {
      const big = await submitAs('ada', { model: 'image-fast', prompt: 'x'.repeat(MAX_BODY) });
      expect(big.status).toBe(413);
      expectErrorShape(big.body, 'INVALID_BODY');
      const broken = await call('POST', '/generations', {
        user: 'ada',
        body: '{"model": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(broken.status).toBe(422);
      expectErrorShape(broken.body, 'INVALID_BODY');
      const method = await call('DELETE', '/credits', { user: 'ada' });
      expect(method.status).toBe(405);
      expect(method.headers.get('allow')).toBe('GET');
      expectErrorShape(method.body, 'METHOD_NOT_ALLOWED');
      const service = await submitAs('ada', { model: 'image-fast', prompt: 'x', number_results: 99 });
      expect(service.status).toBe(422);
      expect(service.body).toMatchObject({ message: expect.any(String), next: expect.any(String) });
    });

    it('a submit or an estimate cannot name another user’s generation as its input: 422 like an unknown id, nothing billed', async () => {
      const ada = await submitAs('ada', { model: 'image-fast', prompt: 'ada’s private picture' });
      const adaId = ada.body!.generation_id!;
      expect((await client.generations.wait(adaId)).status).toBe('completed');
      submitted.length = 0;
      const before = await balance();
      const unknownId = '00000000-0000-4000-8000-000000000000';
      for (const path of ['/generations', '/estimate']) {
        const post = (user: string, input_image: string) =>
          call('POST', path, {
            user,
            body: JSON.stringify({ model: 'image-upscale', input_image }),
            headers: { 'content-type': 'application/json' },
          });
        const theirs = await post('mallory', adaId);
        expect({ path, status: theirs.status }).toEqual({ path, status: 422 });
        expectErrorShape(theirs.body, 'INVALID_BODY');
        expect(theirs.body!.details).toEqual({ field: 'input_image' });
        // Indistinguishable from an id that names nothing.
        const unknown = await post('mallory', unknownId);
        expect({ path, status: unknown.status, body: unknown.body }).toEqual({ path, status: 422, body: theirs.body });
      }
      // The id as the service may also read it (any case, padded), and under the other input that takes ids.
      for (const [field, value] of [
        ['input_image', adaId.toUpperCase()],
        ['input_image', ` ${adaId}\t`],
        ['input_video', adaId],
      ] as const) {
        const res = await call('POST', '/generations', {
          user: 'mallory',
          body: JSON.stringify({ model: 'image-upscale', [field]: value }),
          headers: { 'content-type': 'application/json' },
        });
        expect({ value, status: res.status }).toEqual({ value, status: 422 });
        expect(res.body!.details).toEqual({ field });
      }
      expect(submitted).toEqual([]);
      expect(await balance()).toBe(before);
      // The owner may use her own generation as an input.
      const own = await submitAs('ada', { model: 'image-upscale', input_image: adaId });
      expect(own.status).toBe(202);
    });

    uploadCases({
      origin: () => app.origin,
      client: () => client,
      store: () => store,
      directory: () => uploads.directory,
      submitted,
      userCookie: (user) => `${USER_COOKIE}=${user}`,
    });

    it('a reconnect (Last-Event-ID) to a stream whose terminal state was sent answers 204, so an EventSource stops', async () => {
      const { body } = await submitAs('ada', { model: 'image-fast', prompt: 'ends' });
      const url = `${app.origin}/api/generations/${body!.generation_id}/events`;
      const first = await fetch(url, { headers: { cookie: `${USER_COOKIE}=ada` } });
      const ids = (await first.text())
        .split('\n')
        .filter((line) => line.startsWith('id: '))
        .map((line) => line.slice(4));
      expect(ids.at(-1)).toBe('3');
      // What a browser's EventSource does when the stream ends: reconnect with the last id it saw.
      const again = await fetch(url, { headers: { cookie: `${USER_COOKIE}=ada`, 'last-event-id': ids.at(-1)! } });
      expect(again.status).toBe(204);
      expect(await again.text()).toBe('');
      // Another user's reconnect is still a 404, and one that saw less still gets the terminal state.
      const theirs = await call('GET', `/generations/${body!.generation_id}/events`, {
        user: 'mallory',
        headers: { 'last-event-id': '3' },
      });
      expect(theirs.status).toBe(404);
      const behind = await fetch(url, { headers: { cookie: `${USER_COOKIE}=ada`, 'last-event-id': '2' } });
      expect(behind.status).toBe(200);
      expect(await behind.text()).toContain('id: 3\n');
    });

    it('a service that cannot be reached answers 502 in the contract shape (with next), never a bare 500', async () => {
      await emulator.faults.add({ endpoint: 'credits', reset: true });
      const res = await call('GET', '/credits', { user: 'ada' });
      expect(res.status).toBe(502);
      expectErrorShape(res.body, 'CONNECTION_ERROR');
    });

    it('an id or a cursor from outside that names nothing is 404 or 422 in the contract shape, never a 500', async () => {
      const ids = ['%00', 'a%00b', '%1B%5B2J', '%E2%80%AE', '%F0%9F%98%80', "'%20OR%201%3D1"];
      for (const id of ids) {
        for (const path of [`/generations/${id}`, `/generations/${id}/events`]) {
          const answer = await call('GET', path, { user: 'ada' });
          expect({ path, status: answer.status }).toEqual({ path, status: 404 });
          expectErrorShape(answer.body, 'NOT_FOUND');
        }
      }
      // A broken percent-encoding (a lone surrogate's bytes, a cut sequence) or a very long path:
      // core answers 404, and a framework's router may refuse it first (Fastify: its own 400 for
      // the encoding, 414 past its maxParamLength).
      for (const id of ['%ED%A0%80', '%E0%A4%A', 'x'.repeat(300), 'x'.repeat(5_000)]) {
        for (const path of [`/generations/${id}`, `/generations/${id}/events`]) {
          const { status } = await call('GET', path, { user: 'ada' });
          expect({ path: path.slice(0, 40), refused: [400, 404, 414].includes(status) }).toEqual({
            path: path.slice(0, 40),
            refused: true,
          });
        }
      }
      for (const cursor of ['nonsense', '1.%00', '1.%E2%80%AE', `${'9'.repeat(20)}.k`]) {
        const answer = await call('GET', `/generations?cursor=${cursor}`, { user: 'ada' });
        expect(answer.status).not.toBeGreaterThanOrEqual(500);
      }
    });
  });
}
