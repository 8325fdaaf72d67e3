import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { errorFromResponse, parseErrorBody } from '../src/http/response-error';
import { parseRetryAfter } from '../src/http/retry-after';
import { isMediaGenError, MediaGenClient } from '../src/index';
import { startScriptedServer } from './support/scripted-server';

/** Header values a real server can send (visible ASCII and spaces, no CR/LF). */
const headerValue = fc.string({
  unit: fc.constantFrom(...' !"#$%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~'),
  maxLength: 60,
});

/** Bodies that services, proxies and broken middleboxes answer with, huge ones included. */
const anyBody = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.string({ maxLength: 300 }),
  fc
    .record({
      error: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.record({ code: fc.anything(), message: fc.anything() })),
      message: fc.anything(),
      next: fc.anything(),
      request_id: fc.anything(),
    })
    .map((v) => JSON.stringify(v)),
  fc
    .record(
      { generation_id: fc.anything(), status: fc.anything(), models: fc.anything(), balance: fc.anything(), error: fc.anything() },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc
    .tuple(fc.constantFrom('<', '{', '[', '"', '<a ', '\\', '{"error":"'), fc.integer({ min: 1, max: 300_000 }))
    .map(([unit, n]) => unit.repeat(n)),
  fc.constantFrom(
    'null',
    '[]',
    '"s"',
    '0',
    '{"error":"X"}',
    '{"error":"toString"}',
    '{"error":"__proto__"}',
    '{"models":[null]}',
    '{"generation_id":"a"}',
    '',
    '{"a":',
  ),
);

describe('the error-body parser, on anything', () => {
  it('always yields a typed APIError with a bounded message, linear in the body', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 300, max: 599 }),
        fc.dictionary(fc.constantFrom('content-type', 'retry-after', 'x-request-id', 'x-other'), headerValue),
        anyBody,
        (status, headers, text) => {
          // (Found by this property: a code of "toString" once read Object.prototype.)
          const error = errorFromResponse(status, new Headers(headers), text);
          expect(isMediaGenError(error)).toBe(true);
          expect(error.status).toBe(status);
          expect(error.message.length).toBeLessThanOrEqual(2_000);
          expect(typeof error.code).toBe('string');
          const body = parseErrorBody(text);
          if (body !== undefined) expect(typeof body.error).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('Retry-After is a finite wait of whole ms, or unknown', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          headerValue,
          fc.double().map(String),
          fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toUTCString())),
        ),
        (value) => {
          const ms = parseRetryAfter(value);
          if (ms !== undefined) expect(Number.isFinite(ms) && ms >= 0 && ms === Math.ceil(ms)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

let answer: { status: number; headers: Record<string, string>; body: string } = { status: 200, headers: {}, body: '{}' };
const server = await startScriptedServer((_req, res) => {
  try {
    res.writeHead(answer.status, answer.headers);
  } catch {
    res.writeHead(answer.status);
  }
  res.end(answer.body);
});
afterAll(() => server.close());
const client = new MediaGenClient({ apiKey: 'svc_live_fuzz', baseUrl: server.url, maxRetries: 0, timeoutMs: 5_000, validate: false });
const calls: Array<() => Promise<unknown>> = [
  () => client.generations.get('g1'),
  () => client.generations.create({ model: 'image-fast', prompt: 'x' }),
  () => client.generations.estimate({ model: 'image-fast', prompt: 'x' }),
  () => client.models.list(),
  () => client.credits.get(),
  () => client.generations.wait('g1', { intervalMs: 1, timeoutMs: 50 }),
];

describe('the client against a server answering anything', () => {
  it('every call resolves or throws a MediaGenError, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 200, max: 299 }), fc.integer({ min: 300, max: 599 })).filter((s) => s !== 204 && s !== 205 && s !== 304),
        fc.dictionary(
          fc.constantFrom('content-type', 'retry-after', 'x-request-id', 'x-ratelimit-remaining', 'x-credits-balance'),
          headerValue,
        ),
        anyBody,
        async (status, headers, body) => {
          answer = { status, headers, body };
          for (const call of calls) {
            const outcome = await call().then(
              (value) => ({ value }),
              (error: unknown) => ({ error }),
            );
            if ('error' in outcome) {
              expect(isMediaGenError(outcome.error), String(outcome.error)).toBe(true);
              expect((outcome.error as Error).message.length).toBeLessThanOrEqual(2_000);
            } else {
              expect(status).toBeLessThan(300);
              expect(typeof outcome.value).toBe('object');
              expect(Array.isArray(outcome.value)).toBe(false);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
