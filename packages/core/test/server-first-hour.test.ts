import { createServer } from 'node:net';
import { createEmulator } from '@mediagen/emulator';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_BASE_URL, MediaGenClient } from '../src/index';
import { createMediaGenHandler, createWebhookHandler, type MediaGenHandlerOptions } from '../src/server';
import { EMULATOR_COMMAND, EMULATOR_WEBHOOK_SECRET } from '../src/wire';
import { completedDelivery } from './support/completion';
import { memorySource } from './support/memory-source';

// What a new user meets in their first hour, on core's one handler (issue 32): settings that
// would fail quietly are said at start-up and on GET /health; the errors a newcomer meets say
// what to do in the app's terms.

const emu = createEmulator({ config: { timeScale: 0.001 } });
afterAll(() => emu.close());
afterEach(() => vi.unstubAllEnvs());

/** A client at the local emulator's default address (development, no settings), reaching the in-process emulator. */
const devClient = () => new MediaGenClient({ fetch: (input, init) => emu.fetch(String(input).replace(DEFAULT_BASE_URL, emu.url), init) });

/** A port on this machine where nothing listens: a real refused connection. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const BASE = 'http://app.test/api';
const get = (handler: (r: Request) => Promise<Response>, path: string, user?: string) =>
  handler(new Request(BASE + path, { headers: user ? { 'x-user': user } : {} }));
const post = (handler: (r: Request) => Promise<Response>, path: string, body: unknown, user = 'ada') =>
  handler(
    new Request(BASE + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': user },
      body: JSON.stringify(body),
    }),
  );

function handlerOf(options: Partial<MediaGenHandlerOptions> & Pick<MediaGenHandlerOptions, 'client'>) {
  return createMediaGenHandler({
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source: memorySource().source,
    onError: () => {},
    ...options,
  });
}

describe('GET /health and the start-up warnings', () => {
  it('a development app with no settings is healthy against the emulator, and prints nothing', async () => {
    vi.stubEnv('NODE_ENV', 'development');
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    vi.stubEnv('MEDIAGEN_WEBHOOK_SECRET', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const handler = handlerOf({ client: devClient(), webhook: {} });
    const health = await get(handler, '/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, problems: [] });
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('production with no webhook secret: warned once at start-up, and 503 on /health while it lasts', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('MEDIAGEN_WEBHOOK_SECRET', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const client = new MediaGenClient({ apiKey: 'svc_live_emulator_demo', baseUrl: emu.url, fetch: emu.fetch });
    const handler = handlerOf({ client, webhook: {} });
    const lines = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('WEBHOOK_SECRET_MISSING'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('MEDIAGEN_WEBHOOK_SECRET');
    expect(lines[0]).toContain('GET /api/health');
    const health = await get(handler, '/health');
    expect(health.status).toBe(503);
    expect(health.headers.get('cache-control')).toBe('no-store');
    const body = (await health.json()) as { ok: boolean; problems: { code: string; next: string }[] };
    expect(body.ok).toBe(false);
    expect(body.problems.map((p) => p.code)).toEqual(['WEBHOOK_SECRET_MISSING']);
    expect(body.problems[0]!.next).toContain('MEDIAGEN_WEBHOOK_SECRET');
    // And a delivery says the same to whoever looks at it: a 500 (the service retries) with the remedy.
    const delivery = await handler(
      new Request(`${BASE}/webhooks/mediagen`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    );
    expect(delivery.status).toBe(500);
    expect(await delivery.json()).toMatchObject({
      error: 'WEBHOOK_SECRET_MISSING',
      next: expect.stringContaining('MEDIAGEN_WEBHOOK_SECRET'),
    });
    warn.mockRestore();
  });

  it('a MEDIAGEN_WEBHOOK_SECRET of only commas and blanks is no secret: read as the receiver reads it', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('MEDIAGEN_WEBHOOK_SECRET', ' , ');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const client = new MediaGenClient({ apiKey: 'svc_live_emulator_demo', baseUrl: emu.url, fetch: emu.fetch });
    const body = (await (await get(handlerOf({ client, webhook: {} }), '/health')).json()) as { problems: { code: string }[] };
    expect(body.problems.map((p) => p.code)).toEqual(['WEBHOOK_SECRET_MISSING']);
    warn.mockRestore();
  });

  it('production with no address: the module loads (a build), the warning waits for the server, /health names the setting', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubEnv('NEXT_PHASE', 'phase-production-build');
    expect(() => handlerOf({ client: new MediaGenClient(), webhook: { secrets: 'whsec_x' } })).not.toThrow();
    expect(warn).not.toHaveBeenCalled();
    vi.stubEnv('NEXT_PHASE', 'phase-production-server');
    const handler = handlerOf({ client: new MediaGenClient(), webhook: { secrets: 'whsec_x' } });
    expect(warn.mock.calls.map(([line]) => String(line)).join('\n')).toContain('MEDIAGEN_BASE_URL');
    const body = (await (await get(handler, '/health')).json()) as { problems: { code: string; message: string }[] };
    expect(body.problems).toEqual([
      { code: 'CONFIGURATION_ERROR', message: expect.stringContaining('MEDIAGEN_BASE_URL'), next: 'Set MEDIAGEN_BASE_URL.' },
    ]);
    warn.mockRestore();
  });

  it('production with no key: /health names MEDIAGEN_API_KEY and says to set it', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    const handler = handlerOf({ client: new MediaGenClient({ baseUrl: emu.url, fetch: emu.fetch }) });
    const body = (await (await get(handler, '/health')).json()) as { problems: unknown[] };
    expect(body.problems).toEqual([
      { code: 'CONFIGURATION_ERROR', message: expect.stringContaining('MEDIAGEN_API_KEY'), next: expect.stringMatching(/^Set it/) },
    ]);
  });

  it('no identify and no allowAnonymous: warned, listed on /health, and every per-user route refused 401', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const handler = handlerOf({ client: devClient(), identify: undefined });
    expect(warn.mock.calls.map(([line]) => String(line)).join('\n')).toContain('allowAnonymous');
    const health = (await (await get(handler, '/health')).json()) as { problems: { code: string }[] };
    expect(health.problems.map((p) => p.code)).toEqual(['USER_UNKNOWN']);
    const refused = await post(handler, '/generations', { model: 'image-fast', prompt: 'a lighthouse' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'USER_UNKNOWN', next: expect.any(String) });
    // Said explicitly, every anonymous visitor is one user.
    const shared = handlerOf({ client: devClient(), identify: undefined, allowAnonymous: true });
    expect((await post(shared, '/generations', { model: 'image-fast', prompt: 'a lighthouse' })).status).toBe(202);
    expect((await get(shared, '/health')).status).toBe(200);
    warn.mockRestore();
  });

  it('the service unreachable at the emulator address: /health and a submit say how to start it, within about a second', async () => {
    vi.stubEnv('NODE_ENV', 'development');
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    const port = await closedPort();
    const client = new MediaGenClient({
      fetch: (input, init) => fetch(String(input).replace(DEFAULT_BASE_URL, `http://127.0.0.1:${port}`), init),
    });
    const attempts: number[] = [];
    const counted = new MediaGenClient({
      fetch: (input, init) => {
        attempts.push(1);
        return fetch(String(input).replace(DEFAULT_BASE_URL, `http://127.0.0.1:${port}`), init);
      },
    });
    const handler = handlerOf({ client });
    const health = (await (await get(handler, '/health')).json()) as { problems: { code: string; next: string }[] };
    expect(health.problems).toEqual([
      { code: 'CONNECTION_ERROR', message: expect.any(String), next: expect.stringContaining(EMULATOR_COMMAND) },
    ]);
    const submit = await post(handlerOf({ client: counted }), '/generations', { model: 'image-fast', prompt: 'a lighthouse' });
    expect(submit.status).toBe(502);
    const body = (await submit.json()) as { error: string; next: string };
    expect(body.error).toBe('CONNECTION_ERROR');
    expect(body.next).toContain('127.0.0.1:4010');
    expect(body.next).toContain(EMULATOR_COMMAND);
    // Two calls (the model list for validation, then the submit), each resent once at the default
    // address (not four times): the error comes after two 1 s backoffs, not 17 s of them.
    expect(attempts).toHaveLength(4);
  });
});

describe('the webhook in development needs no secret', () => {
  it("a handler on the emulator's default address takes deliveries signed with the emulator's default secret", async () => {
    vi.stubEnv('NODE_ENV', 'development');
    vi.stubEnv('MEDIAGEN_WEBHOOK_SECRET', '');
    const events: string[] = [];
    const handler = handlerOf({ client: devClient(), webhook: { onEvent: (event) => void events.push(event.type) } });
    const delivery = await handler(new Request(`${BASE}/webhooks/mediagen`, await completedDelivery('gen_dev', EMULATOR_WEBHOOK_SECRET)));
    expect(delivery.status).toBe(200);
    expect(events).toEqual(['generation.completed']);
  });

  it("the receiver alone (Express's mediagenWebhook, Next's createWebhookHandler) given that client does the same", async () => {
    vi.stubEnv('NODE_ENV', 'development');
    vi.stubEnv('MEDIAGEN_WEBHOOK_SECRET', '');
    const events: string[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const receiver = createWebhookHandler({ client: devClient(), onEvent: (event) => void events.push(event.type) });
    const delivery = await receiver(new Request('http://app.test/hooks', await completedDelivery('gen_alone', EMULATOR_WEBHOOK_SECRET)));
    expect(delivery.status).toBe(200);
    expect(events).toEqual(['generation.completed']);
    expect(warn).not.toHaveBeenCalled();
    // With no secret anywhere: said at start-up, and each refused delivery's error carries the remedy.
    const errors: unknown[] = [];
    const unset = createWebhookHandler({ onError: (error) => void errors.push(error) });
    expect(warn.mock.calls.map(([line]) => String(line)).join('\n')).toContain('WEBHOOK_SECRET_MISSING');
    const refused = await unset(new Request('http://app.test/hooks', await completedDelivery('gen_alone', EMULATOR_WEBHOOK_SECRET)));
    expect(refused.status).toBe(500);
    expect(errors[0]).toMatchObject({ code: 'WEBHOOK_SECRET_MISSING', next: expect.stringContaining('MEDIAGEN_WEBHOOK_SECRET') });
    warn.mockRestore();
  });

  it('never in production, nor for any other address', async () => {
    vi.stubEnv('MEDIAGEN_WEBHOOK_SECRET', '');
    const cases: [string, MediaGenClient][] = [
      ['production', new MediaGenClient({ apiKey: 'k_long_enough', baseUrl: DEFAULT_BASE_URL })],
      ['development', new MediaGenClient({ apiKey: 'k_long_enough', baseUrl: 'https://api.example.test' })],
    ];
    for (const [nodeEnv, client] of cases) {
      vi.stubEnv('NODE_ENV', nodeEnv);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const handler = handlerOf({ client, webhook: {} });
      const delivery = await handler(new Request(`${BASE}/webhooks/mediagen`, await completedDelivery('gen_dev', EMULATOR_WEBHOOK_SECRET)));
      expect([nodeEnv, delivery.status]).toEqual([nodeEnv, 500]);
      warn.mockRestore();
    }
  });
});

describe("errors a newcomer meets, in the app's terms", () => {
  it("an unknown model: the service's own message (no status or request id prefix), and the app's model route as next", async () => {
    const handler = handlerOf({
      client: new MediaGenClient({ apiKey: 'svc_live_emulator_demo', baseUrl: emu.url, fetch: emu.fetch, validate: false }),
    });
    const answer = await post(handler, '/generations', { model: 'no-such-model', prompt: 'a lighthouse' });
    expect(answer.status).toBe(422);
    const body = (await answer.json()) as { error: string; message: string; next: string; request_id: string };
    expect(body.error).toBe('UNKNOWN_MODEL');
    expect(body.message).not.toMatch(/^422|request_id/);
    expect(body.request_id).toMatch(/^req_/);
    expect(body.next).toBe('Use a slug from GET /api/models.');
  });

  it('a param the app does not take: named, with the list of those it does', async () => {
    const handler = handlerOf({ client: devClient(), allowParams: ['model', 'prompt', 'aspect_ratio'] });
    const answer = await post(handler, '/generations', { model: 'image-fast', prompt: 'x', image_size: 'square' });
    expect(answer.status).toBe(422);
    const body = (await answer.json()) as { message: string; details: { field: string; accepted: string[] } };
    expect(body.message).toBe('The param "image_size" is not accepted here; these are: model, prompt, aspect_ratio.');
    expect(body.details).toEqual({ field: 'image_size', accepted: ['model', 'prompt', 'aspect_ratio'] });
  });
});
