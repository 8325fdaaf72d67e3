import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, MediaGenClient, type WebhookEvent } from '../src/index';
import { createMediaGenHandler, type MediaGenHandlerOptions } from '../src/server';
import { ERROR_CODES } from '../src/wire';
import { completedDelivery } from './support/completion';
import { startFakeService } from './support/fake-service';
import { memorySource } from './support/memory-source';
import { imageFast } from './support/models';

const service = await startFakeService({ models: [imageFast] });
afterAll(() => service.close());
const client = new MediaGenClient({ apiKey: 'svc_live_server_side', baseUrl: service.url, maxRetries: 0, validate: false });

const BASE = 'http://app.test/api';
/** Who the request says it is: the stand-in for an app's session cookie. */
const as = (user: string | undefined, init: RequestInit & { path: string }) => {
  const headers = new Headers(init.headers);
  if (user) headers.set('x-user', user);
  return new Request(BASE + init.path, { ...init, headers });
};
const submit = (user: string | undefined, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  as(user, { path: '/generations', method: 'POST', headers, body });

function setup(extra: Partial<MediaGenHandlerOptions> = {}) {
  const { source, entries } = memorySource();
  const submitted: string[] = [];
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source,
    onSubmitted: (s) => void submitted.push(s.generation_id),
    onError: () => {},
    ...extra,
  });
  return { handler, entries, submitted };
}

const bodyOf = async (res: Response) => (await res.json()) as Record<string, unknown>;

describe('createMediaGenHandler', () => {
  it('answers its routes under the base path only, in the contract error shape', async () => {
    const { handler } = setup();
    const outside = await handler(new Request('http://app.test/generations'));
    expect(outside.status).toBe(404);
    expect(await bodyOf(outside)).toEqual({ error: 'NOT_FOUND', message: expect.any(String), next: expect.any(String), request_id: null });
    const wrongMethod = await handler(as('ada', { path: '/credits', method: 'DELETE' }));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect((await bodyOf(wrongMethod)).error).toBe('METHOD_NOT_ALLOWED');
    const credits = await handler(as('ada', { path: '/credits', method: 'GET' }));
    expect(credits.status).toBe(200);
    expect((await bodyOf(credits)).balance).toBe(1000);
    expect(handler.route('GET', '/api/generations/x/events')).toBe('events');
    expect(handler.route('POST', '/api/generations/x/events')).toBe('events');
    expect(handler.route('GET', '/other')).toBeUndefined();
    // Not configured here: an adapter passes these on to the app's own routes.
    expect(handler.route('POST', '/api/webhooks/mediagen')).toBeUndefined();
    const noSource = createMediaGenHandler({ client });
    expect(noSource.route('GET', '/generations')).toBeUndefined();
    expect(noSource.route('POST', '/generations')).toBe('generations');
  });

  it('reads only application/json: a form, text or multipart post from another site is refused unread', async () => {
    const { handler } = setup();
    const before = service.count('POST', '/api/v1/generate');
    const multipart = new FormData();
    multipart.set('model', 'image-fast');
    const posts = [
      submit('ada', 'model=image-fast&prompt=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      submit('ada', '{"model":"image-fast","prompt":"x"}', { 'content-type': 'text/plain' }),
      as('ada', { path: '/generations', method: 'POST', body: multipart }),
      as('ada', { path: '/estimate', method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"model":"image-fast"}' }),
    ];
    for (const post of posts) {
      const res = await handler(post);
      expect(res.status).toBe(422);
      expect(await bodyOf(res)).toMatchObject({ error: 'INVALID_BODY', details: { field: 'Content-Type' } });
    }
    expect(service.count('POST', '/api/v1/generate')).toBe(before);
  });

  it('refuses any Idempotency-Key the service cannot be sent with a 4xx naming the header (never a 500)', async () => {
    const { handler } = setup();
    const before = service.count('POST', '/api/v1/generate');
    const invalid = fc.oneof(
      fc.string({ minLength: 256, maxLength: 400, unit: fc.constantFrom('a', 'b', '-') }),
      fc
        .tuple(fc.string({ maxLength: 10 }), fc.integer({ min: 0x80, max: 0xff }), fc.string({ maxLength: 10 }))
        .map(([a, code, b]) => `${a}${String.fromCharCode(code)}${b}`),
      fc.constantFrom('tab\there', 'bell\x07'),
    );
    await fc.assert(
      fc.asyncProperty(invalid, async (key) => {
        const res = await handler(
          submit('ada', '{"model":"image-fast","prompt":"x"}', { 'content-type': 'application/json', 'idempotency-key': key }),
        );
        expect(res.status).toBe(422);
        expect(await bodyOf(res)).toMatchObject({ error: 'INVALID_BODY', details: { field: 'Idempotency-Key' } });
      }),
      { numRuns: 60 },
    );
    expect(service.count('POST', '/api/v1/generate')).toBe(before);
  });

  it('scopes every read, list and stream to the user who submitted: another user gets 404', async () => {
    const { handler, submitted } = setup();
    const res = await handler(submit('ada', '{"model":"image-fast","prompt":"a cat"}'));
    expect(res.status).toBe(202);
    const { generation_id: id } = (await bodyOf(res)) as { generation_id: string };
    expect(submitted).toEqual([id]);

    const own = await handler(as('ada', { path: `/generations/${id}`, method: 'GET' }));
    expect(own.status).toBe(200);
    expect((await bodyOf(own)).generation_id).toBe(id);
    for (const path of [`/generations/${id}`, `/generations/${id}/events`]) {
      const other = await handler(as('bob', { path, method: 'GET' }));
      expect([path, other.status]).toEqual([path, 404]);
      expect((await bodyOf(other)).error).toBe('NOT_FOUND');
    }
    // No user named (a session cookie never set): refused outright, never served as a shared user.
    for (const [method, path] of [
      ['GET', `/generations/${id}`],
      ['GET', `/generations/${id}/events`],
      ['GET', '/generations'],
      ['GET', '/generations/events'],
      ['POST', '/generations'],
    ]) {
      const nobody = await handler(
        as(undefined, { path: path!, method: method!, ...(method === 'POST' && { body: '{"model":"image-fast","prompt":"x"}' }) }),
      );
      expect([path, nobody.status]).toEqual([path, 401]);
      expect((await bodyOf(nobody)).error).toBe('USER_UNKNOWN');
    }
    const ownList = (await bodyOf(await handler(as('ada', { path: '/generations', method: 'GET' })))) as {
      generations: { generation_id: string }[];
    };
    expect(ownList.generations.map((g) => g.generation_id)).toEqual([id]);
    const otherList = await bodyOf(await handler(as('bob', { path: '/generations', method: 'GET' })));
    expect(otherList).toEqual({ generations: [], next_cursor: null });
  });

  it('streams status changes as server-sent events until a terminal state', async () => {
    const { handler } = setup();
    const { generation_id: id } = (await bodyOf(await handler(submit('ada', '{"model":"image-fast","prompt":"x"}')))) as {
      generation_id: string;
    };
    const res = await handler(as('ada', { path: `/generations/${id}/events`, method: 'GET' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += (await reader.read()).value;
    service.finish(id);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    const statuses = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)).status);
    expect(statuses).toEqual(['pending', 'completed']);
  });

  it('needs a way to scope reads once it names users', () => {
    expect(() => createMediaGenHandler({ client, identify: () => 'ada' })).toThrow(ConfigurationError);
    expect(() => createMediaGenHandler({ client, identify: () => 'ada', authorize: () => true })).not.toThrow();
  });

  it('authorize decides every read when there is no source', async () => {
    const handler = createMediaGenHandler({
      client,
      identify: (request) => request.headers.get('x-user') ?? undefined,
      authorize: (context) => context.owner === 'ada',
    });
    const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'x' });
    const read = (user: string, which = id) =>
      handler(new Request(`http://app.test/generations/${which}`, { headers: { 'x-user': user } }));
    expect((await read('ada')).status).toBe(200);
    const refused = await read('bob');
    const unknown = await read('ada', '00000000-0000-4000-8000-999999999999');
    // Another user's id and an id that does not exist answer the very same body (spec: indistinguishable).
    expect([refused.status, unknown.status]).toEqual([404, 404]);
    expect(await refused.json()).toEqual(await unknown.json());
  });

  it('sends no CORS headers unless the origin is on the allowlist', async () => {
    const open = setup();
    const fromSite = (handler: typeof open.handler, origin: string, method = 'GET') =>
      handler(as('ada', { path: '/credits', method, headers: { origin, 'access-control-request-method': 'GET' } }));
    const plain = await fromSite(open.handler, 'https://evil.example');
    expect([...plain.headers.keys()].filter((name) => name.startsWith('access-control'))).toEqual([]);
    expect((await fromSite(open.handler, 'https://evil.example', 'OPTIONS')).status).toBe(405);

    const { handler } = setup({ cors: { origins: ['https://app.example'] } });
    const allowed = await fromSite(handler, 'https://app.example');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const preflight = await fromSite(handler, 'https://app.example', 'OPTIONS');
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('idempotency-key');
    expect((await fromSite(handler, 'https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
    // Every answer varies by Origin once CORS is on, the refused and the origin-less ones too.
    expect(allowed.headers.get('vary')).toBe('origin');
    expect((await fromSite(handler, 'https://evil.example')).headers.get('vary')).toBe('origin');
    expect((await handler(as('ada', { path: '/credits' }))).headers.get('vary')).toBe('origin');
    // Without CORS, nothing is added.
    expect((await open.handler(as('ada', { path: '/credits' }))).headers.get('vary')).toBeNull();
  });

  it('serves the webhook receiver: signed deliveries reach onEvent with the platform, unsigned get 401', async () => {
    const events: [WebhookEvent, unknown][] = [];
    const { handler } = setup({
      webhook: { secrets: 'whsec_test', onEvent: (event, context) => void events.push([event, context.platform]) },
    });
    const id = crypto.randomUUID();
    const deliver = async (secret: string | undefined) =>
      handler(new Request(`${BASE}/webhooks/mediagen`, await completedDelivery(id, secret)), { from: 'adapter' });
    expect((await deliver('whsec_test')).status).toBe(200);
    expect(events.map(([event, platform]) => [event.data.generation_id, platform])).toEqual([[id, { from: 'adapter' }]]);
    const unsigned = await deliver(undefined);
    expect(unsigned.status).toBe(ERROR_CODES.WEBHOOK_SIGNATURE_MISSING.status);
    expect((await bodyOf(unsigned)).error).toBe('WEBHOOK_SIGNATURE_MISSING');
  });
});
