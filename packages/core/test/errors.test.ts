import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  APIError,
  AuthenticationError,
  ConflictError,
  InsufficientCreditsError,
  InvalidRequestError,
  isMediaGenError,
  MediaGenClient,
  MediaGenError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
} from '../src/index';
import { errorBody, json, startScriptedServer } from './support/scripted-server';

type Row = { status: number; code: string; cls: new (...args: never[]) => APIError; extra?: Record<string, unknown> };

/** Every row of the spec's error table. */
const TABLE: Row[] = [
  { status: 401, code: 'AUTH_MISSING', cls: AuthenticationError },
  { status: 401, code: 'KEY_INVALID', cls: AuthenticationError },
  { status: 401, code: 'KEY_REVOKED', cls: AuthenticationError },
  { status: 402, code: 'INSUFFICIENT_CREDITS', cls: InsufficientCreditsError, extra: { balance: 10, needed: 40 } },
  { status: 403, code: 'TIER_LOCKED', cls: PermissionDeniedError },
  { status: 403, code: 'MODEL_NOT_ALLOWED', cls: PermissionDeniedError, extra: { model: 'video-standard' } },
  { status: 403, code: 'API_DISABLED', cls: PermissionDeniedError, extra: { until: '2026-12-01T00:00:00Z' } },
  { status: 403, code: 'ACCOUNT_BANNED', cls: PermissionDeniedError, extra: { until: '2026-12-02T00:00:00Z' } },
  { status: 403, code: 'ACCOUNT_FROZEN', cls: PermissionDeniedError },
  { status: 403, code: 'ACCOUNT_RESTRICTED', cls: PermissionDeniedError },
  { status: 400, code: 'CONTENT_POLICY_VIOLATION', cls: InvalidRequestError, extra: { category: 'violence' } },
  { status: 400, code: 'ENHANCE_NOT_SUPPORTED', cls: InvalidRequestError },
  { status: 400, code: 'OPTION_NOT_AVAILABLE', cls: InvalidRequestError },
  { status: 404, code: 'NOT_FOUND', cls: NotFoundError },
  { status: 422, code: 'UNKNOWN_MODEL', cls: InvalidRequestError },
  { status: 422, code: 'INVALID_BODY', cls: InvalidRequestError, extra: { details: { field: 'duration' } } },
  { status: 413, code: 'INVALID_BODY', cls: InvalidRequestError },
  { status: 422, code: 'MISSING_PROMPT', cls: InvalidRequestError },
  { status: 422, code: 'MODEL_NOT_API_SUPPORTED', cls: InvalidRequestError },
  { status: 422, code: 'INPUT_VIDEO_NOT_SUPPORTED', cls: InvalidRequestError },
  { status: 422, code: 'INVALID_NUMBER_RESULTS', cls: InvalidRequestError },
  { status: 422, code: 'MODEL_CONTRACT_VIOLATION', cls: InvalidRequestError },
  { status: 422, code: 'IDEMPOTENCY_KEY_REUSED', cls: InvalidRequestError },
  { status: 409, code: 'IDEMPOTENT_REQUEST_IN_FLIGHT', cls: ConflictError },
  { status: 429, code: 'RATE_LIMIT', cls: RateLimitError },
  { status: 429, code: 'CONCURRENCY_LIMIT', cls: RateLimitError, extra: { in_flight: 5, max_concurrent: 5 } },
  { status: 500, code: 'INTERNAL_ERROR', cls: ServerError },
  { status: 503, code: 'SAFETY_CHECK_UNAVAILABLE', cls: ServerError },
  { status: 503, code: 'PROVIDER_DOWN', cls: ServerError },
];

let answer: { status: number; body?: Record<string, unknown>; raw?: string; headers?: Record<string, string> };
const server = await startScriptedServer((_req, res) => {
  if (answer.raw !== undefined) {
    res.writeHead(answer.status, { 'content-type': 'text/html', ...answer.headers });
    res.end(answer.raw);
    return;
  }
  json(res, answer.status, answer.body ?? {}, answer.headers);
});
const client = new MediaGenClient({ apiKey: 'svc_live_secret_key_123', baseUrl: server.url, maxRetries: 0 });

async function failWith(a: typeof answer): Promise<MediaGenError> {
  answer = a;
  const error = await client.credits.get().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMediaGenError(error)).toBe(true);
  return error as MediaGenError;
}

afterAll(() => server.close());

describe('error table', () => {
  it.each(TABLE)('$status $code -> $cls.name', async ({ status, code, cls, extra }) => {
    const error = await failWith({ status, body: errorBody(code, { request_id: 'req_abc123', ...extra }) });
    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(MediaGenError);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.requestId).toBe('req_abc123');
    expect(error.next).toBe(`do something about ${code}`);
    expect(error.message).toContain(code);
    expect(error.retryable).toBe(status === 409 || status === 429 || status >= 500);
    expect((error.body as { error: string }).error).toBe(code);
  });

  it('carries the fields each code documents', async () => {
    const credits = (await failWith({
      status: 402,
      body: errorBody('INSUFFICIENT_CREDITS', { balance: 10, needed: 40 }),
    })) as InsufficientCreditsError;
    expect([credits.balance, credits.needed]).toEqual([10, 40]);

    const banned = (await failWith({
      status: 403,
      body: errorBody('ACCOUNT_BANNED', { until: '2026-12-02T00:00:00Z' }),
    })) as PermissionDeniedError;
    expect(banned.until?.toISOString()).toBe('2026-12-02T00:00:00.000Z');

    const field = (await failWith({
      status: 422,
      body: errorBody('INVALID_BODY', { details: { field: 'aspect_ratio' } }),
    })) as InvalidRequestError;
    expect(field.field).toBe('aspect_ratio');

    const model = (await failWith({
      status: 403,
      body: errorBody('MODEL_NOT_ALLOWED', { model: 'video-standard' }),
    })) as PermissionDeniedError;
    expect(model.model).toBe('video-standard');

    const busy = (await failWith({
      status: 429,
      body: errorBody('CONCURRENCY_LIMIT', { in_flight: 5, max_concurrent: 5 }),
      headers: { 'retry-after': '7' },
    })) as RateLimitError;
    expect([busy.inFlight, busy.maxConcurrent, busy.retryAfterMs]).toEqual([5, 5, 7000]);

    const limited = (await failWith({ status: 429, body: errorBody('RATE_LIMIT') })) as RateLimitError;
    expect(limited.retryAfterMs).toBe(5000);
  });
});

describe('earlier forms of the contract', () => {
  it('INVALID_PARAMS with field/reason is INVALID_BODY', async () => {
    const error = (await failWith({
      status: 422,
      body: { error: 'INVALID_PARAMS', field: 'size', reason: 'not a preset' },
    })) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.code).toBe('INVALID_BODY');
    expect(error.field).toBe('size');
    expect((error.body as { reason: string }).reason).toBe('not a preset');
  });

  it('UNAUTHORIZED is AUTH_MISSING', async () => {
    const error = await failWith({ status: 401, body: { error: 'UNAUTHORIZED', message: 'missing header' } });
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe('AUTH_MISSING');
  });

  it('403 NOT_YOURS is not found', async () => {
    const error = await failWith({ status: 403, body: { error: 'NOT_YOURS', message: 'not yours' } });
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.status).toBe(403);
  });

  it('a non-JSON body (a proxy page) still gives a typed error with the status', async () => {
    const error = await failWith({
      status: 502,
      raw: '<html><body><h1>502 Bad Gateway</h1></body></html>',
      headers: { 'x-request-id': 'req_proxy' },
    });
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(502);
    expect(error.code).toBe('HTTP_502');
    expect(error.retryable).toBe(true);
    expect(error.requestId).toBe('req_proxy');
    expect(error.message).toContain('502 Bad Gateway');
  });

  it('an unknown 4xx is still an APIError and never retried', async () => {
    const error = await failWith({ status: 418, body: errorBody('TEAPOT') });
    expect(error).toBeInstanceOf(APIError);
    expect(error.retryable).toBe(false);
  });
});

describe('secrets', () => {
  it('never appear in errors, their JSON, or the client', async () => {
    const error = await failWith({ status: 401, body: errorBody('KEY_INVALID') });
    const everything = [
      error.message,
      String(error),
      JSON.stringify(error),
      inspect(error, { depth: 5 }),
      inspect(client, { depth: 5 }),
      JSON.stringify(client),
    ].join('\n');
    expect(everything).not.toContain('svc_live_secret_key_123');
  });

  it('recognises errors from another copy of the package by brand', () => {
    const foreign = { isMediaGenError: true, code: 'X' };
    expect(isMediaGenError(foreign)).toBe(true);
    expect(isMediaGenError(new Error('x'))).toBe(false);
    expect(isMediaGenError(null)).toBe(false);
  });
});
