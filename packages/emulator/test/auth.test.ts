import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emu, emulator, expectErrorShape, KEY, proAccount } from './helpers.js';

const until = new Date(Date.now() + 86_400_000).toISOString();

let emu: Emu;
beforeAll(async () => {
  emu = await emulator({
    timeScale: 0.001,
    accounts: [
      proAccount({ keys: [{ key: KEY }, { key: 'svc_live_old', revoked: true }], models: ['image-fast', 'text-writer'] }),
      { id: 'acct_free', tier: 'free', balance: 100, keys: [{ key: 'svc_live_free' }] },
      { id: 'acct_std', tier: 'standard', balance: 100, keys: [{ key: 'svc_live_std' }] },
      { id: 'acct_banned', tier: 'pro', balance: 100, status: 'banned', keys: [{ key: 'svc_live_banned' }] },
      { id: 'acct_tban', tier: 'pro', balance: 100, status: 'banned', until, keys: [{ key: 'svc_live_tban' }] },
      { id: 'acct_frozen', tier: 'ultimate', balance: 100, status: 'frozen', until, keys: [{ key: 'svc_live_frozen' }] },
      { id: 'acct_restricted', tier: 'pro_plus', balance: 100, status: 'restricted', keys: [{ key: 'svc_live_restricted' }] },
    ],
  });
});
afterAll(() => emu.close());

describe('authentication', () => {
  it('401 AUTH_MISSING without the header, and for a malformed one', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer' }] as Record<string, string>[]) {
      for (const [m, p] of [
        ['GET', '/api/v1/models'],
        ['GET', '/api/v1/credits'],
        ['POST', '/api/v1/generate'],
        ['GET', '/api/v1/generations/x'],
      ] as const) {
        const r = await emu.call(m, p, { key: null, headers, ...(m === 'POST' ? { body: { model: 'image-fast', prompt: 'x' } } : {}) });
        expect(r.status).toBe(401);
        expect(r.body.error).toBe('AUTH_MISSING');
        expectErrorShape(r);
      }
    }
  });

  it('401 KEY_INVALID without the prefix or for an unknown key', async () => {
    for (const key of ['sk_live_abc', 'svc_test_abc', 'svc_live_unknown']) {
      const r = await emu.call('GET', '/api/v1/models', { key });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('KEY_INVALID');
      expectErrorShape(r);
    }
  });

  it('401 KEY_REVOKED for a revoked key', async () => {
    const r = await emu.call('GET', '/api/v1/credits', { key: 'svc_live_old' });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('KEY_REVOKED');
  });

  it('403 TIER_LOCKED for free and standard on every endpoint', async () => {
    for (const key of ['svc_live_free', 'svc_live_std']) {
      for (const [m, p] of [
        ['GET', '/api/v1/models'],
        ['GET', '/api/v1/credits'],
        ['POST', '/api/v1/generate'],
      ] as const) {
        const r = await emu.call(m, p, { key, ...(m === 'POST' ? { body: { model: 'image-fast', prompt: 'x' } } : {}) });
        expect(r.status).toBe(403);
        expect(r.body.error).toBe('TIER_LOCKED');
        expectErrorShape(r);
      }
    }
  });

  it('403 ACCOUNT_BANNED, with until when temporary, lifted once the clock passes it', async () => {
    const perm = await emu.call('GET', '/api/v1/credits', { key: 'svc_live_banned' });
    expect(perm.status).toBe(403);
    expect(perm.body.error).toBe('ACCOUNT_BANNED');
    expect(perm.body.until).toBeUndefined();
    const temp = await emu.call('GET', '/api/v1/models', { key: 'svc_live_tban' });
    expect(temp.body).toMatchObject({ error: 'ACCOUNT_BANNED', until });
    await emu.control('POST', '/clock', { advanceMs: 2 * 86_400_000 });
    expect((await emu.call('GET', '/api/v1/models', { key: 'svc_live_tban' })).status).toBe(200);
    await emu.control('POST', '/reset');
  });

  it('403 ACCOUNT_FROZEN and ACCOUNT_RESTRICTED block generation but not reads', async () => {
    const f = await emu.submit({ model: 'image-fast', prompt: 'x' }, { key: 'svc_live_frozen' });
    expect(f.status).toBe(403);
    expect(f.body).toMatchObject({ error: 'ACCOUNT_FROZEN', until });
    expectErrorShape(f);
    expect((await emu.call('GET', '/api/v1/credits', { key: 'svc_live_frozen' })).status).toBe(200);
    const r = await emu.submit({ model: 'image-fast', prompt: 'x' }, { key: 'svc_live_restricted' });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('ACCOUNT_RESTRICTED');
    expect((await emu.call('GET', '/api/v1/models', { key: 'svc_live_restricted' })).status).toBe(200);
  });

  it('403 MODEL_NOT_ALLOWED outside the allowlist; the model list is filtered', async () => {
    const r = await emu.submit({ model: 'video-standard', prompt: 'x' });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'MODEL_NOT_ALLOWED', model: 'video-standard' });
    const models = await emu.call('GET', '/api/v1/models');
    expect(models.body.models.map((m: { slug: string }) => m.slug)).toEqual(['image-fast', 'text-writer']);
    const all = await emu.call('GET', '/api/v1/models', { key: 'svc_live_frozen' });
    expect(all.body.models.length).toBe(10);
    expect(all.body.tier).toBe('ultimate');
    expect(all.body.rate_limit).toEqual({ per_minute: 600, max_concurrent: 20 });
  });

  it('rate_limit per tier on the credits endpoint', async () => {
    const r = await emu.call('GET', '/api/v1/credits', { key: 'svc_live_restricted' });
    expect(r.body.rate_limit).toEqual({ per_minute: 420, max_concurrent: 12 });
    const p = await emu.call('GET', '/api/v1/credits');
    expect(p.body).toMatchObject({
      balance: 15000,
      tier: 'pro',
      rate_limit: { per_minute: 240, max_concurrent: 5 },
      spent_this_cycle: 0,
      granted_this_cycle: 15000,
    });
    expect(Date.parse(p.body.cycle_resets_at)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(p.body.request_id).toBe(p.headers.get('x-request-id'));
  });

  it('unknown routes are 404 NOT_FOUND and wrong methods 405, with the error shape', async () => {
    const a = await emu.call('GET', '/api/v1/nothing');
    expect(a.status).toBe(404);
    expectErrorShape(a);
    const b = await emu.call('GET', '/api/v1/generate');
    expect(b.status).toBe(405);
    expect(b.headers.get('allow')).toBe('POST');
    expectErrorShape(b);
  });
});

describe('platform switch', () => {
  it('403 API_DISABLED when apiDisabled is true', async () => {
    const off = await emulator({ apiDisabled: true, accounts: [proAccount() as never] });
    try {
      for (const p of ['/api/v1/models', '/api/v1/credits']) {
        const r = await off.call('GET', p);
        expect(r.status).toBe(403);
        expect(r.body.error).toBe('API_DISABLED');
        expectErrorShape(r);
      }
    } finally {
      await off.close();
    }
  });
});
