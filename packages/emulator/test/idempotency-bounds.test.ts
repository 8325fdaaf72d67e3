import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyStore } from '../src/idempotency.js';
import { type Emu, emulator } from './helpers.js';

const response = (id: string) => ({ status: 202, body: { generation_id: id }, headers: {} });

describe('the idempotency store is bounded', () => {
  it('holds at most maxEntries keys, the oldest dropped first', () => {
    const store = new IdempotencyStore(
      () => 0,
      () => true,
      60_000,
      3,
    );
    for (const k of ['a', 'b', 'c', 'd']) {
      expect(store.claim('acct', k, 'h').kind).toBe('new');
      store.complete('acct', k, response(k));
    }
    expect(store.size).toBe(3);
    expect(store.claim('acct', 'd', 'h').kind).toBe('replay');
    // "a" was dropped: the key is new again.
    expect(store.claim('acct', 'a', 'other').kind).toBe('new');
  });

  it('forgets a key after its TTL, and once its generation record is gone', () => {
    let now = 0;
    const live = new Set(['g1', 'g2']);
    const store = new IdempotencyStore(
      () => now,
      (id) => live.has(id),
      1_000,
      100,
    );
    store.claim('acct', 'k1', 'h');
    store.complete('acct', 'k1', response('g1'));
    store.claim('acct', 'k2', 'h');
    store.complete('acct', 'k2', response('g2'));
    now = 999;
    expect(store.claim('acct', 'k1', 'h').kind).toBe('replay');
    now = 1_000;
    expect(store.claim('acct', 'k1', 'other').kind).toBe('new');
    live.delete('g2');
    now = 0;
    expect(store.claim('acct', 'k2', 'other').kind).toBe('new');
  });

  it('keeps a long client key as a fixed-size digest, scoped per account', () => {
    const store = new IdempotencyStore(() => 0);
    expect(store.claim('a', 'x'.repeat(10_000), 'h').kind).toBe('new');
    expect(store.claim('b', 'x'.repeat(10_000), 'h').kind).toBe('new');
    expect(store.claim('a', 'x'.repeat(10_000), 'h').kind).toBe('in_flight');
  });
});

describe('over HTTP: a key expires 24 h later on the emulator clock', () => {
  let emu: Emu;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());

  it('the same key with another body is 422 within 24 h and a new generation after', async () => {
    const headers = { 'idempotency-key': 'ttl-1' };
    expect((await emu.submit({ model: 'image-fast', prompt: 'a' }, { headers })).status).toBe(202);
    expect((await emu.submit({ model: 'image-fast', prompt: 'b' }, { headers })).status).toBe(422);
    expect((await emu.control('POST', '/clock', { advanceMs: 24 * 3600 * 1000 })).status).toBe(200);
    expect((await emu.submit({ model: 'image-fast', prompt: 'b' }, { headers })).status).toBe(202);
  });
});
