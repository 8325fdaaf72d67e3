import { afterAll, describe, expect, it } from 'vitest';
import { Gate, type GateStore, MediaGenClient } from '../src/index';
import { createApiHandler, SubmitRefusedError } from '../src/server';
import { errorBody, json, startScriptedServer } from './support/scripted-server';

// The service behind the handler: accepts any submit, and refuses one prompt as the real one would.
const service = await startScriptedServer((req, res) => {
  if (req.method === 'POST' && req.body.includes('[[blocked]]')) return json(res, 400, errorBody('CONTENT_POLICY_VIOLATION'));
  if (req.method === 'POST') {
    return json(res, 202, {
      generation_id: 'g-1',
      status: 'pending',
      model: JSON.parse(req.body).model,
      credits_estimate: 4,
      pricing_source: 'catalog_default',
      created_at: '',
    });
  }
  if (req.path === '/api/v1/models') {
    return json(res, 200, {
      tier: 'pro',
      credits_balance: 100,
      rate_limit: { per_minute: 240, max_concurrent: 5 },
      models: [],
      request_id: 'req_1',
    });
  }
  json(res, 404, errorBody('NOT_FOUND'));
});
afterAll(() => service.close());

const client = new MediaGenClient({ apiKey: 'svc_live_server_side', baseUrl: service.url, validate: false, maxRetries: 0 });
const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  new Request('http://app.test/api/generations', { method: 'POST', headers, body });

describe('createApiHandler', () => {
  it('claims only its four routes', () => {
    const api = createApiHandler({ client });
    expect(api.handles('POST', '/generations')).toBe(true);
    expect(api.handles('GET', '/generations/abc')).toBe(true);
    expect(api.handles('GET', '/models')).toBe(true);
    expect(api.handles('GET', '/credits')).toBe(true);
    expect(api.handles('GET', '/generations')).toBe(false);
    expect(api.handles('DELETE', '/generations/abc')).toBe(false);
    expect(api.handles('POST', '/models')).toBe(false);
  });

  it('submits, passing the browser idempotency key and the adapter context to the hooks', async () => {
    const seen: unknown[] = [];
    const api = createApiHandler<{ user: string }>({
      client,
      beforeSubmit: (params, ctx) => ({ ...params, seed: ctx.user.length }),
      onSubmitted: (submitted, params, ctx) => void seen.push([submitted.generation_id, params.seed, ctx.user]),
    });
    const res = await api.handle(
      post('{"model":"image-fast","prompt":"x"}', { 'content-type': 'application/json', 'idempotency-key': 'click-1' }),
      '/generations',
      { user: 'ada' },
    );
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ generation_id: 'g-1', status: 'pending' });
    expect(seen).toEqual([['g-1', 3, 'ada']]);
    const sent = service.requests.at(-1)!;
    expect(sent.headers['idempotency-key']).toBe('click-1');
    expect(JSON.parse(sent.body)).toEqual({ model: 'image-fast', prompt: 'x', seed: 3 });
  });

  it('refuses bad bodies with the spec error body and never reaches the service', async () => {
    const api = createApiHandler({ client, maxBodyBytes: 64, allowModels: ['image-fast'], allowParams: ['model', 'prompt'] });
    const before = service.requests.length;
    const cases: Array<[Request, number, string]> = [
      [post('model=x', { 'content-type': 'application/x-www-form-urlencoded' }), 422, 'INVALID_BODY'],
      [post('{"model": '), 422, 'INVALID_BODY'],
      [post('[1,2]'), 422, 'INVALID_BODY'],
      [post(JSON.stringify({ model: 'image-fast', prompt: 'x'.repeat(100) })), 413, 'INVALID_BODY'],
      [post('{"prompt":"no model"}'), 422, 'INVALID_BODY'],
      [post('{"model":"image-fast","seed":1}'), 422, 'INVALID_BODY'],
      [post('{"model":"video-standard"}'), 403, 'MODEL_NOT_ALLOWED'],
    ];
    for (const [index, [request, status, code]] of cases.entries()) {
      const res = await api.handle(request, '/generations', undefined);
      const body = (await res.json()) as Record<string, unknown>;
      expect([res.status, body.error], `case ${index}`).toEqual([status, code]);
      expect(body).toMatchObject({ message: expect.any(String), next: expect.any(String) });
    }
    expect(service.requests.length).toBe(before);
  });

  it("answers the service's own error with its status and body, without the key", async () => {
    const api = createApiHandler({ client });
    const res = await api.handle(post('{"model":"image-fast","prompt":"a [[blocked]] cat"}'), '/generations', undefined);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error: 'CONTENT_POLICY_VIOLATION', next: 'do something about CONTENT_POLICY_VIOLATION' });
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(text).not.toContain('svc_live_server_side');
  });

  it('beforeSubmit refuses with a 4xx by throwing SubmitRefusedError; any other throw is a 500 with its message hidden', async () => {
    const before = service.requests.length;
    const refusing = createApiHandler({
      client,
      beforeSubmit: () => {
        throw new SubmitRefusedError('Sign in first.', { status: 401, code: 'SIGN_IN', next: 'Sign in, then submit again.' });
      },
    });
    const refused = await refusing.handle(post('{"model":"image-fast","prompt":"x"}'), '/generations', undefined);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'SIGN_IN', message: 'Sign in first.', next: 'Sign in, then submit again.' });
    const crashing = createApiHandler({
      client,
      beforeSubmit: () => {
        throw new Error('db password is hunter2');
      },
    });
    const crashed = await crashing.handle(post('{"model":"image-fast","prompt":"x"}'), '/generations', undefined);
    expect(crashed.status).toBe(500);
    expect(await crashed.text()).not.toContain('hunter2');
    // What the browser is not told reaches the server's log (onError), and a 4xx refusal does not.
    const seen: unknown[] = [];
    const observed = createApiHandler({
      client,
      onError: (e) => void seen.push(e),
      beforeSubmit: () => {
        throw new Error('db password is hunter2');
      },
    });
    expect((await observed.handle(post('{"model":"image-fast","prompt":"x"}'), '/generations', undefined)).status).toBe(500);
    expect((await observed.handle(post('{"model":'), '/generations', undefined)).status).toBe(422);
    expect(seen.map((e) => (e as Error).message)).toEqual(['db password is hunter2']);
    expect(service.requests.length).toBe(before);
  });

  it('runs onSubmitted once per generation: an idempotent replay answers the same 202 without it', async () => {
    const recorded: string[] = [];
    let failNext = true;
    const api = createApiHandler({
      client,
      onSubmitted: (submitted) => {
        if (failNext) {
          failNext = false;
          throw new Error('db down');
        }
        recorded.push(submitted.generation_id);
      },
    });
    const click = () => post('{"model":"image-fast","prompt":"x"}', { 'content-type': 'application/json', 'idempotency-key': 'form-7' });
    // The first record fails: 500, and the resend with the same key records it.
    expect((await api.handle(click(), '/generations', undefined)).status).toBe(500);
    for (let i = 0; i < 3; i++) expect((await api.handle(click(), '/generations', undefined)).status).toBe(202);
    expect(recorded).toEqual(['g-1']);
  });

  it("a failure inside the SDK that is not the service's (a gate store's) is a 500 whose message stays on the server", async () => {
    const broken: GateStore = {
      acquire: () => {
        throw new Error('redis://:hunter2@cache:6379 refused');
      },
      bind: () => {},
      release: () => {},
      settle: () => {},
    };
    const gated = new MediaGenClient({
      apiKey: 'svc_live_server_side',
      baseUrl: service.url,
      validate: false,
      maxRetries: 0,
      gate: new Gate({ store: broken }),
    });
    const res = await createApiHandler({ client: gated }).handle(post('{"model":"image-fast","prompt":"x"}'), '/generations', undefined);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('redis');
    expect(JSON.parse(text)).toMatchObject({ error: 'UNEXPECTED', message: 'Internal error.' });
  });

  it("a malformed browser Idempotency-Key is the browser's 422, and never reaches the service", async () => {
    const before = service.requests.length;
    const api = createApiHandler({ client });
    for (const key of ['x'.repeat(256), 'caf\u00e9']) {
      const res = await api.handle(
        post('{"model":"image-fast","prompt":"x"}', { 'content-type': 'application/json', 'idempotency-key': key }),
        '/generations',
        undefined,
      );
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ error: 'INVALID_BODY', details: { field: 'Idempotency-Key' } });
    }
    expect(service.requests.length).toBe(before);
  });

  it('idempotencyScope: the same browser key from two users names two submits; from one user, one', async () => {
    const api = createApiHandler<{ user: string }>({ client, idempotencyScope: ({ user }) => user });
    const sentKeys: string[] = [];
    for (const user of ['ada', 'bob', 'ada', 'Zoë ✓']) {
      const before = service.requests.length;
      const res = await api.handle(
        post('{"model":"image-fast","prompt":"x"}', { 'content-type': 'application/json', 'idempotency-key': 'form-1' }),
        '/generations',
        { user },
      );
      expect(res.status).toBe(202);
      sentKeys.push(service.requests.slice(before).find((r) => r.method === 'POST')!.headers['idempotency-key'] as string);
    }
    const [ada, bob, adaAgain, unicode] = sentKeys;
    expect(ada).toMatch(/^[0-9a-f]{64}$/);
    expect(adaAgain).toBe(ada);
    expect(bob).not.toBe(ada);
    expect(unicode).toMatch(/^[0-9a-f]{64}$/);
    expect(sentKeys).not.toContain('form-1');
  });

  it('a broken percent-encoding in a status path is a 404, not a 500', async () => {
    const api = createApiHandler({ client });
    const res = await api.handle(new Request('http://app.test/api/generations/%ZZ'), '/generations/%ZZ', undefined);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'NOT_FOUND', message: expect.any(String) });
  });
});
