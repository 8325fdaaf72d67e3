import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../src/bounds.js';
import { type Emu, emulator, KEY, proAccount } from './helpers.js';
import { jsonError, rawExchange } from './raw.js';

const KEY_B = 'svc_live_test_other';
const RUNS = 250;
const RAW_RUNS = 30;
let emu: Emu;
const owned: Record<string, Set<string>> = { [KEY]: new Set(), [KEY_B]: new Set() };

beforeAll(async () => {
  emu = await emulator({
    timeScale: 0.001,
    accounts: [proAccount(), proAccount({ id: 'acct_other', keys: [{ key: KEY_B }] })],
  });
  for (const key of [KEY, KEY_B]) {
    const r = await emu.submit({ model: 'image-fast', prompt: 'seed' }, { key });
    owned[key]?.add(r.body.generation_id);
  }
});
afterAll(() => emu.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(method: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<Answer> {
  const { hostname, port } = new URL(emu.url);
  const oversize = body !== undefined && Buffer.byteLength(body) > BODY_LIMIT;
  return new Promise((resolve, reject) => {
    // A fresh connection each time: a pooled socket the server closed (after a 413) would fail the next request.
    const req = request({ host: hostname, port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        // An oversize body was never sent: its request ends here.
        if (oversize) req.destroy();
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (oversize) {
      // The emulator answers an oversize body from its declared length, before reading a byte
      // of it (413, then it closes the connection). Sending the bytes into that close would
      // race the answer, so only the headers go out: the answer must come without the body.
      // Asked to keep the connection, so that the close is the emulator's own doing.
      req.setHeader('content-length', Buffer.byteLength(body));
      req.setHeader('connection', 'keep-alive');
      req.flushHeaders();
    } else req.end(body);
  });
}

const ids = () => [...(owned[KEY] ?? []), ...(owned[KEY_B] ?? [])];
const garbage = fc.constantFrom('%', '%ZZ', '%E0%A4%A', '%00', '%C0%AF', '..', '%2F', 'a%20b', '');
const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,12}$/),
  garbage,
  fc.constantFrom('generations', 'output', 'acct_pro', 'acct_other'),
);
const path = fc.oneof(
  fc.constantFrom(
    '/api/v1/generate',
    '/api/v1/models',
    '/api/v1/credits',
    '/__emulator/health',
    '/__emulator/reset',
    '/__emulator/clock',
    '/__emulator/faults',
    '/__emulator/deliveries',
    '/__emulator/accounts/acct_pro',
    '/__emulator/accounts/acct_other',
  ),
  fc.integer({ min: 0, max: 1 }).map((i) => `/api/v1/generations/${ids()[i] ?? 'x'}`),
  fc
    .tuple(
      fc.constantFrom('/api/v1/generations/', '/api/v1/output/', '/__emulator/accounts/', '/api/v1/', '/'),
      fc.array(segment, { maxLength: 6 }),
    )
    .map(([head, parts]) => head + parts.join('/')),
  fc
    .tuple(fc.constantFrom('/__emulator/deliveries?', '/api/v1/models?'), fc.stringMatching(/^[A-Za-z0-9=&%_.-]{0,20}$/))
    .map(([a, b]) => a + b),
);
const depth = (n: number) => `{"model":${'['.repeat(n)}${']'.repeat(n)},"prompt":"x"}`;
const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .record({
      model: fc.constantFrom('image-fast', 'image-pro', 'video-standard', 'text-writer', 'nope'),
      prompt: fc.string({ maxLength: 40 }),
      number_results: fc.oneof(fc.integer({ min: -2, max: 6 }), fc.constant('2')),
      estimate: fc.boolean(),
    })
    .map((v) => JSON.stringify(v)),
  fc
    .record(
      { advanceMs: fc.oneof(fc.integer(), fc.double(), fc.constant(9e15)), balance: fc.integer(), status: fc.string() },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.integer({ min: 100, max: 300_000 }).map(depth),
  fc.constantFrom(BODY_LIMIT, BODY_LIMIT + 1).map((n) => 'x'.repeat(n)),
);
const request$ = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'BREW'),
  path,
  key: fc.constantFrom(KEY, KEY_B, null, 'svc_live_nope', 'garbage'),
  contentType: fc.constantFrom('application/json', 'text/plain', null, 'application/json; charset=utf-8'),
  idempotencyKey: fc.option(
    fc.string({ minLength: 1, maxLength: 30 }).filter((s) => /^[\x21-\x7e]+$/.test(s)),
    { nil: null },
  ),
  body,
});

describe('the emulator fuzzed over HTTP', () => {
  it('answers every request with a success or a 4xx JSON error body; no account sees another account\u2019s generation', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(request$, async (r) => {
        runs++;
        const headers: Record<string, string> = {};
        if (r.key) headers.authorization = `Bearer ${r.key}`;
        if (r.contentType) headers['content-type'] = r.contentType;
        if (r.idempotencyKey) headers['idempotency-key'] = r.idempotencyKey;
        const sendsBody = r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD';
        const a = await send(r.method, r.path, headers, sendsBody ? r.body : undefined);
        // Injected faults are not part of this property: any that a fuzzed control added is cleared.
        if (r.path.startsWith('/__emulator/faults')) await emu.control('DELETE', '/faults');
        expect(a.status, `${r.method} ${r.path}`).toBeLessThan(500);
        expect(a.status).toBeGreaterThanOrEqual(200);
        if (a.status >= 400 && r.method !== 'HEAD') {
          const e = JSON.parse(a.text);
          expect(typeof e.error).toBe('string');
          expect(typeof e.message).toBe('string');
          expect(typeof e.next).toBe('string');
          expect(e.request_id).toBe(a.headers['x-request-id']);
        }
        // The documented answer to an oversize body: 413 INVALID_BODY, and the connection closes.
        if (a.status === 413) {
          expect(sendsBody && Buffer.byteLength(r.body ?? '') > BODY_LIMIT, 'a 413 only for a body over the cap').toBe(true);
          if (r.method !== 'HEAD') expect(JSON.parse(a.text).error).toBe('INVALID_BODY');
          expect(a.headers.connection).toBe('close');
        }
        if (a.status === 202 && r.key) owned[r.key]?.add(JSON.parse(a.text).generation_id);
        const m = /^\/api\/v1\/generations\/([^/?]+)$/.exec(r.path);
        if (m && a.status === 200 && r.method === 'GET' && r.key) {
          expect(owned[r.key]?.has(JSON.parse(a.text).generation_id), 'a generation of another account').toBe(true);
        }
      }),
      // No time limit: fast-check counts an interrupted run as a pass however few cases ran.
      { numRuns: RUNS },
    );
    expect(runs, 'every run executed').toBeGreaterThanOrEqual(RUNS);
    // Protocol garbage on raw sockets: a JSON 400 each time.
    let rawRuns = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 60 }), async (junk) => {
        rawRuns++;
        const a = await rawExchange(emu.url, [`${junk}\r\n\r\n`], 5_000);
        expect(a.status, JSON.stringify(junk)).toBe(400);
        expect(jsonError(a).error).toEqual(expect.any(String));
        expect(a.headers.connection).toBe('close');
      }),
      { numRuns: RAW_RUNS },
    );
    expect(rawRuns, 'every raw run executed').toBeGreaterThanOrEqual(RAW_RUNS);
    // Still up, and the accounts still apart.
    expect((await emu.control('GET', '/health')).status).toBe(200);
    const [a] = [...(owned[KEY] ?? [])];
    expect(a, 'the generation seeded before the run').toEqual(expect.any(String));
    expect((await emu.get(a as string, KEY_B)).status).toBe(404);
  }, 120_000);
});
