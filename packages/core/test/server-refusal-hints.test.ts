import { afterEach, describe, expect, it, vi } from 'vitest';
import { MediaGenClient, signWebhook } from '../src/index';
import { createMediaGenHandler } from '../src/server';
import { ERROR_CODES } from '../src/wire';
import { NO_SUCH_ROUTE_NEXT } from '../src/wire/error-codes';
import { memorySource } from './support/memory-source';

/** Nothing here reaches a service: refusals answer before any call (a closed port, should one slip). */
const client = new MediaGenClient({ apiKey: 'svc_live_refusals', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
const SECRET = 'whsec_refusal_hints';
const body = async (res: Response) => (await res.json()) as Record<string, unknown>;

describe('404s say what was not found', () => {
  const routeNotFound = (message: string) => ({ error: 'NOT_FOUND', message, next: NO_SUCH_ROUTE_NEXT, request_id: null });

  it('an unknown route, inside or outside the base path, is NOT_FOUND with a hint about routes, not generation ids', async () => {
    const handler = createMediaGenHandler({ client, basePath: '/api', identify: () => 'ada', source: memorySource().source });
    for (const path of ['/api/nothing', '/api/generations/g1/other', '/elsewhere']) {
      const res = await handler(new Request(`http://app.test${path}`));
      expect(res.status).toBe(404);
      expect(await body(res)).toEqual(routeNotFound('No such route.'));
    }
    expect(NO_SUCH_ROUTE_NEXT).not.toBe(ERROR_CODES.NOT_FOUND.next);
  });

  it('a route this handler was not configured for says so, with the same hint', async () => {
    const bare = createMediaGenHandler({ client, basePath: '/api' });
    const webhook = await bare(new Request('http://app.test/api/webhooks/mediagen', { method: 'POST' }));
    expect(webhook.status).toBe(404);
    expect(await body(webhook)).toEqual(routeNotFound('No webhook receiver is configured here.'));
    const list = await bare(new Request('http://app.test/api/generations'));
    expect(list.status).toBe(404);
    expect(await body(list)).toEqual(routeNotFound('This app keeps no list of generations (no source is configured).'));
  });

  it("an unknown generation id keeps the id's hint", async () => {
    const handler = createMediaGenHandler({ client, basePath: '/api', identify: () => 'ada', source: memorySource().source });
    const res = await handler(new Request('http://app.test/api/generations/no-such-id'));
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({
      error: 'NOT_FOUND',
      message: 'No such generation.',
      next: ERROR_CODES.NOT_FOUND.next,
      request_id: null,
    });
  });
});

describe("the handler's default onError", () => {
  afterEach(() => vi.restoreAllMocks());

  /** A delivery to the handler's receiver, signed with `secret` (or carrying `signature` as given). */
  const deliver = async (handler: ReturnType<typeof createMediaGenHandler>, init: { secret?: string; signature?: string }) => {
    const payload = JSON.stringify({
      generation_id: 'g-forged',
      status: 'completed',
      model: 'image-fast',
      output_url: 'https://media.example/g.png',
      credits_charged: 4,
      duration_ms: 1,
      completed_at: '2026-01-01T00:00:00.000Z',
    });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const signature = init.signature ?? (init.secret ? await signWebhook(payload, init.secret) : undefined);
    if (signature) headers['x-service-signature'] = signature;
    return handler(new Request('http://app.test/api/webhooks/mediagen', { method: 'POST', headers, body: payload }));
  };

  it('logs a forged or unsigned delivery as one warning line: its code, no stack, no secret, no body', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const handler = createMediaGenHandler({ client, basePath: '/api', allowAnonymous: true, webhook: { secrets: SECRET } });
    const cases = [
      [{ secret: 'whsec_attacker' }, 'WEBHOOK_SIGNATURE_INVALID'],
      [{ signature: 'sha256=not-hex' }, 'WEBHOOK_SIGNATURE_INVALID'],
      [{}, 'WEBHOOK_SIGNATURE_MISSING'],
    ] as const;
    for (const [init, code] of cases) {
      const res = await deliver(handler, init);
      expect(res.status).toBe(401);
      expect((await body(res)).error).toBe(code);
    }
    expect(error).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(cases.length);
    warn.mock.calls.forEach(([line, ...rest], i) => {
      expect(rest).toEqual([]);
      expect(typeof line).toBe('string');
      expect(line).toContain(cases[i]![1]);
      expect(line).not.toMatch(/\n|\bat\s|whsec_|g-forged/);
    });
  });

  it('still logs a server fault whole (the stack says where): a failing event handler', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const fault = new Error('the database is down');
    const handler = createMediaGenHandler({
      client,
      basePath: '/api',
      webhook: {
        secrets: SECRET,
        onEvent: () => {
          throw fault;
        },
      },
    });
    const res = await deliver(handler, { secret: SECRET });
    expect(res.status).toBe(500);
    expect(error).toHaveBeenCalledWith(fault);
  });
});
