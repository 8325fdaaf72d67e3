import { NO_SUCH_ROUTE_NEXT } from '@mediagen/core/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emu, emulator, expectErrorShape, KEY, proAccount, type Res } from './helpers.js';

/**
 * One row per line of the spec's error table: how to provoke it against the emulator.
 * Codes the emulator never sends on its own (earlier forms, service-side outages) are
 * provoked through /__emulator/faults, which is how client retry logic gets tested.
 */
let emu: Emu;
beforeAll(async () => {
  emu = await emulator({
    timeScale: 1,
    accounts: [
      proAccount({
        keys: [{ key: KEY }, { key: 'svc_live_revoked', revoked: true }],
        models: ['image-fast', 'image-pro', 'video-edit', 'lipsync-multi', 'image-upscale'],
      }),
      { id: 'free', tier: 'free', keys: [{ key: 'svc_live_free' }] },
      { id: 'banned', tier: 'pro', status: 'banned', keys: [{ key: 'svc_live_banned' }] },
      { id: 'frozen', tier: 'pro', status: 'frozen', keys: [{ key: 'svc_live_frozen' }] },
      { id: 'restricted', tier: 'pro', status: 'restricted', keys: [{ key: 'svc_live_restricted' }] },
      { id: 'poor', tier: 'pro', balance: 1, keys: [{ key: 'svc_live_poor' }] },
      { id: 'busy', tier: 'pro', balance: 1000, keys: [{ key: 'svc_live_busy' }] },
    ],
  });
});
afterAll(() => emu.close());

const gen = (body: Record<string, unknown>, key = KEY, headers: Record<string, string> = {}) => emu.submit(body, { key, headers });
const fault = async (f: Record<string, unknown>, then: () => Promise<Res>) => {
  await emu.control('POST', '/faults', f);
  try {
    return await then();
  } finally {
    await emu.control('DELETE', '/faults');
  }
};

const rows: Array<[number, string, () => Promise<Res>]> = [
  [401, 'AUTH_MISSING', () => emu.call('GET', '/api/v1/models', { key: null })],
  [401, 'KEY_INVALID', () => emu.call('GET', '/api/v1/models', { key: 'nope' })],
  [401, 'KEY_REVOKED', () => emu.call('GET', '/api/v1/models', { key: 'svc_live_revoked' })],
  [401, 'UNAUTHORIZED', () => fault({ endpoint: 'models', status: 401, code: 'UNAUTHORIZED' }, () => emu.call('GET', '/api/v1/models'))],
  [402, 'INSUFFICIENT_CREDITS', () => gen({ model: 'image-fast', prompt: 'x' }, 'svc_live_poor')],
  [403, 'TIER_LOCKED', () => emu.call('GET', '/api/v1/credits', { key: 'svc_live_free' })],
  [403, 'MODEL_NOT_ALLOWED', () => gen({ model: 'text-writer', prompt: 'x' })],
  [403, 'API_DISABLED', () => fault({ endpoint: 'any', status: 403, code: 'API_DISABLED' }, () => emu.call('GET', '/api/v1/credits'))],
  [403, 'ACCOUNT_BANNED', () => emu.call('GET', '/api/v1/credits', { key: 'svc_live_banned' })],
  [403, 'ACCOUNT_FROZEN', () => gen({ model: 'image-fast', prompt: 'x' }, 'svc_live_frozen')],
  [403, 'ACCOUNT_RESTRICTED', () => gen({ model: 'image-fast', prompt: 'x' }, 'svc_live_restricted')],
  [400, 'CONTENT_POLICY_VIOLATION', () => gen({ model: 'image-fast', prompt: '[[blocked]]' })],
  [400, 'ENHANCE_NOT_SUPPORTED', () => gen({ model: 'image-pro', prompt: 'x', enhance: true })],
  [400, 'OPTION_NOT_AVAILABLE', () => gen({ model: 'image-pro', prompt: 'x', size: '4096x4096' })],
  [404, 'NOT_FOUND', () => emu.get('00000000-0000-4000-8000-000000000000')],
  [422, 'UNKNOWN_MODEL', () => gen({ model: 'nope', prompt: 'x' })],
  [422, 'INVALID_BODY', () => emu.call('POST', '/api/v1/generate', { body: '{' })],
  [413, 'INVALID_BODY', () => emu.call('POST', '/api/v1/generate', { body: { model: 'image-fast', prompt: 'x'.repeat(1_200_000) } })],
  [
    422,
    'INVALID_PARAMS',
    () => fault({ endpoint: 'generate', status: 422, code: 'INVALID_PARAMS' }, () => gen({ model: 'image-fast', prompt: 'x' })),
  ],
  [422, 'MISSING_PROMPT', () => gen({ model: 'image-fast' })],
  [422, 'MODEL_NOT_API_SUPPORTED', () => gen({ model: 'lipsync-multi', prompt: 'x' })],
  [422, 'INPUT_VIDEO_NOT_SUPPORTED', () => gen({ model: 'video-edit', prompt: 'x', input_video: 'https://a.example/v.mp4' })],
  [422, 'INVALID_NUMBER_RESULTS', () => gen({ model: 'image-fast', prompt: 'x', number_results: 9 })],
  [422, 'MODEL_CONTRACT_VIOLATION', () => gen({ model: 'image-upscale' })],
  [
    422,
    'IDEMPOTENCY_KEY_REUSED',
    async () => {
      await gen({ model: 'image-fast', prompt: 'a' }, 'svc_live_busy', { 'idempotency-key': 'row' });
      return gen({ model: 'image-fast', prompt: 'b' }, 'svc_live_busy', { 'idempotency-key': 'row' });
    },
  ],
  [
    409,
    'IDEMPOTENT_REQUEST_IN_FLIGHT',
    async () => {
      // The first send is held inside the emulator, its key claimed, until the second is answered.
      await emu.control('POST', '/faults', { endpoint: 'generate', hold: true });
      const send = () => gen({ model: 'image-fast', prompt: 'a' }, 'svc_live_busy', { 'idempotency-key': 'row409' });
      const first = send();
      expect((await emu.control('GET', '/faults/held?min=1')).body.held).toHaveLength(1);
      const second = await send();
      expect(second.headers.get('retry-after')).toBe('3');
      await emu.control('POST', '/faults/release');
      expect((await first).status).toBe(202);
      return second;
    },
  ],
  [429, 'RATE_LIMIT', () => fault({ endpoint: 'generate', status: 429 }, () => gen({ model: 'image-fast', prompt: 'x' }))],
  [
    429,
    'CONCURRENCY_LIMIT',
    async () => {
      for (let i = 0; i < 3; i++) await gen({ model: 'image-fast', prompt: 'x' }, 'svc_live_busy');
      return gen({ model: 'image-fast', prompt: 'x' }, 'svc_live_busy');
    },
  ],
  [500, 'INTERNAL_ERROR', () => fault({ endpoint: 'status', status: 500 }, () => emu.get('00000000-0000-4000-8000-000000000000'))],
  [
    503,
    'SAFETY_CHECK_UNAVAILABLE',
    () => fault({ endpoint: 'generate', status: 503, code: 'SAFETY_CHECK_UNAVAILABLE' }, () => gen({ model: 'image-fast', prompt: 'x' })),
  ],
  [503, 'PROVIDER_DOWN', () => fault({ endpoint: 'generate', status: 503 }, () => gen({ model: 'image-fast', prompt: 'x' }))],
];

describe('every row of the error table', () => {
  for (const [status, code, provoke] of rows) {
    it(`${status} ${code}`, async () => {
      const r = await provoke();
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.error).toBe(code);
      expectErrorShape(r);
    });
  }

  it('an unknown route: 404 NOT_FOUND whose hint names routes, not a generation id', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/nope'],
      ['POST', '/__emulator/nope'],
    ] as const) {
      const r = await emu.call(method, path, { key: null });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ error: 'NOT_FOUND', next: NO_SUCH_ROUTE_NEXT });
      expectErrorShape(r);
    }
  });

  it('retry hints: 409 Retry-After 3, 429 Retry-After, 503 PROVIDER_DOWN Retry-After 60', async () => {
    const r = await fault({ endpoint: 'generate', status: 503 }, () => gen({ model: 'image-fast', prompt: 'x' }));
    expect(r.headers.get('retry-after')).toBe('60');
  });
});
