import { ConfigurationError, MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, type GenerationRecord, type GenerationStore, ledgerSource } from '@mediagen/core/ledger';
import { createMediaGenHandler } from '@mediagen/core/server';
import { afterAll, describe, expect, it } from 'vitest';

export interface GenerationStoreTarget {
  /** Shown in the test names. */
  name: string;
  /** A new, empty store (its own tables or prefix), for one test. */
  create(): Promise<GenerationStore> | GenerationStore;
  /** Called once after every test ran (close pools, drop schemas). */
  close?(): Promise<void> | void;
}

let serial = 0;

/** A record as the ledger writes an intent, with `overrides`. */
export function makeRecord(overrides: Partial<GenerationRecord> = {}): GenerationRecord {
  serial++;
  return {
    key: `key-${serial}-${Math.random().toString(36).slice(2)}`,
    owner: 'user-a',
    params: { model: 'image-fast', prompt: `a prompt ${serial}`, number_results: 2, reference_images: ['https://x.test/a.png'] },
    status: 'submitting',
    generation_id: null,
    generation: null,
    error: null,
    unavailable: false,
    notified: false,
    abandoned: false,
    outputs: null,
    created_at: 1_700_000_000_000 + serial,
    updated_at: 1_700_000_000_000 + serial,
    next_check_at: 0,
    version: 0,
    lease_holder: null,
    lease_until: 0,
    ...overrides,
  };
}

const generation = (id: string, status: 'pending' | 'completed' = 'pending') => ({
  generation_id: id,
  status,
  model: 'image-fast',
  output_url: status === 'completed' ? `https://x.test/api/v1/output/${id}/1/s/0/a.png` : null,
  output_urls: status === 'completed' ? [`https://x.test/api/v1/output/${id}/1/s/0/a.png`] : null,
  credits_used: 8,
  duration_ms: null,
  created_at: '2026-01-01T00:00:00.000Z',
  completed_at: null,
  request_id: 'req_1',
  an_unknown_field: { kept: [1, 'two'] },
});

/**
 * The behaviour the ledger relies on from every `GenerationStore`: one line per store package,
 * `describeGenerationStoreConformance({ name, create })`, in its own test file.
 */
export function describeGenerationStoreConformance(target: GenerationStoreTarget): void {
  describe(`GenerationStore conformance: ${target.name}`, () => {
    afterAll(async () => {
      await target.close?.();
    });

    it('inserts once per key and reads back the record by value, JSON fields and unknown fields intact', async () => {
      const store = await target.create();
      const record = makeRecord();
      expect(await store.insert(record)).toBe(true);
      expect(await store.insert({ ...record, owner: 'someone-else' })).toBe(false);
      const read = await store.get(record.key);
      expect(read).toEqual(record);
      // By value: changing what was read changes nothing stored.
      (read as GenerationRecord).params.prompt = 'changed';
      expect((await store.get(record.key))?.params.prompt).toBe(record.params.prompt);
      expect(await store.get('no-such-key')).toBeUndefined();
    });

    it('update is a compare-and-set on version: one of two writers of the same version wins', async () => {
      const store = await target.create();
      const record = makeRecord();
      await store.insert(record);
      const g = generation('gen-cas-1');
      const [a, b] = await Promise.all([
        store.update(record.key, 0, { status: 'pending', generation_id: 'gen-cas-1', generation: g }),
        store.update(record.key, 0, { status: 'processing', generation_id: 'gen-cas-1' }),
      ]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      const winner = (a ?? b) as GenerationRecord;
      expect(winner.version).toBe(1);
      expect(await store.get(record.key)).toEqual(winner);
      expect(await store.update(record.key, 0, { status: 'failed' })).toBeUndefined();
      expect(await store.update('no-such-key', 0, { status: 'failed' })).toBeUndefined();
      const next = await store.update(record.key, 1, {
        status: 'completed',
        generation: generation('gen-cas-1', 'completed'),
        notified: true,
      });
      expect(next).toMatchObject({ version: 2, status: 'completed', notified: true, owner: record.owner, params: record.params });
      expect(next?.generation).toEqual(generation('gen-cas-1', 'completed'));
    });

    it('keeps the abandoned mark (ledger.cancel): false as inserted, set by an update alone, kept by later updates', async () => {
      const store = await target.create();
      const record = makeRecord();
      await store.insert(record);
      expect((await store.get(record.key))?.abandoned).toBe(false);
      const marked = await store.update(record.key, 0, { abandoned: true });
      expect(marked).toMatchObject({ abandoned: true, version: 1, status: 'submitting' });
      const later = await store.update(record.key, 1, { status: 'pending', generation_id: `gen-${record.key}` });
      expect(later?.abandoned).toBe(true);
      expect((await store.getByGenerationId(`gen-${record.key}`))?.abandoned).toBe(true);
      // Still followed: an abandoned record with work left is due like any other.
      expect((await store.due(Number.MAX_SAFE_INTEGER, 1_000)).map((r) => r.key)).toContain(record.key);
      const born = makeRecord({ abandoned: true });
      await store.insert(born);
      expect((await store.get(born.key))?.abandoned).toBe(true);
    });

    it('finds a record by its generation id once it is recorded', async () => {
      const store = await target.create();
      const record = makeRecord();
      await store.insert(record);
      const id = `gen-${record.key}`;
      expect(await store.getByGenerationId(id)).toBeUndefined();
      await store.update(record.key, 0, { generation_id: id, status: 'pending' });
      expect((await store.getByGenerationId(id))?.key).toBe(record.key);
    });

    it('lists one owner only, newest first, in pages that neither skip nor repeat', async () => {
      const store = await target.create();
      const owner = `owner-${Math.random().toString(36).slice(2)}`;
      const base = 1_800_000_000_000;
      const mine = Array.from({ length: 7 }, (_, i) => makeRecord({ owner, created_at: base + Math.floor(i / 2) }));
      for (const r of [...mine].reverse()) await store.insert(r);
      await store.insert(makeRecord({ owner: `${owner}-other`, created_at: base + 100 }));
      const expected = [...mine].sort((a, b) => b.created_at - a.created_at || (a.key < b.key ? 1 : -1)).map((r) => r.key);
      const seen: string[] = [];
      let after: { created_at: number; key: string } | undefined;
      for (;;) {
        const page = await store.list(owner, { limit: 3, after });
        seen.push(...page.map((r) => r.key));
        const last = page[page.length - 1];
        if (page.length < 3 || !last) break;
        after = { created_at: last.created_at, key: last.key };
      }
      expect(seen).toEqual(expected);
      expect(await store.list('nobody', { limit: 10 })).toEqual([]);
    });

    it('due: work left, check time reached, lease free; earliest first; bounded by limit', async () => {
      const store = await target.create();
      const now = 5_000_000_000_000 + Math.floor(Math.random() * 1_000_000);
      const due1 = makeRecord({ status: 'pending', generation_id: `g1-${now}`, next_check_at: now - 10 });
      const due2 = makeRecord({ status: 'submitting', next_check_at: now - 20 });
      const due3 = makeRecord({ status: 'completed', notified: false, next_check_at: now });
      const later = makeRecord({ status: 'processing', next_check_at: now + 1 });
      const done = makeRecord({ status: 'failed', notified: true, next_check_at: 0 });
      const leased = makeRecord({ status: 'pending', next_check_at: 0, lease_holder: 'x', lease_until: now + 1 });
      for (const r of [due1, due2, due3, later, done, leased]) await store.insert(r);
      const keys = new Set([due1, due2, due3, later, done, leased].map((r) => r.key));
      const found = (await store.due(now, 1_000)).filter((r) => keys.has(r.key)).map((r) => r.key);
      expect(found).toEqual([due2.key, due1.key, due3.key]);
      expect((await store.due(now, 2)).length).toBeLessThanOrEqual(2);
      // Work left follows updates that set only one of status / notified.
      await store.update(due3.key, 0, { notified: true });
      await store.update(due1.key, 0, { status: 'completed' });
      await store.update(later.key, 0, { next_check_at: now - 30 });
      const after = (await store.due(now, 1_000)).filter((r) => keys.has(r.key)).map((r) => r.key);
      expect(after).toEqual([later.key, due2.key, due1.key]);
      await store.update(due1.key, 1, { notified: true });
      expect((await store.due(now, 1_000)).some((r) => r.key === due1.key)).toBe(false);
    });

    it('claim: one holder at a time, re-entrant, lapses at its expiry, released only by its holder; version untouched', async () => {
      const store = await target.create();
      const record = makeRecord();
      await store.insert(record);
      const results = await Promise.all(['a', 'b', 'c', 'd'].map((h) => store.claim(record.key, h, 1_000, 0)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const holder = ['a', 'b', 'c', 'd'][results.indexOf(true)] as string;
      const other = holder === 'a' ? 'b' : 'a';
      expect(await store.claim(record.key, holder, 2_000, 500)).toBe(true);
      expect(await store.claim(record.key, other, 3_000, 1_999)).toBe(false);
      await store.release(record.key, other);
      expect(await store.claim(record.key, other, 3_000, 1_999)).toBe(false);
      // Lapsed: anyone may take it.
      expect(await store.claim(record.key, other, 4_000, 2_000)).toBe(true);
      await store.release(record.key, other);
      expect(await store.claim(record.key, holder, 5_000, 2_001)).toBe(true);
      expect((await store.get(record.key))?.version).toBe(0);
      expect(await store.claim('no-such-key', holder, 1, 0)).toBe(false);
    });

    it('an intent written under a lease keeps it; an update may give it back in the same write', async () => {
      const store = await target.create();
      const record = makeRecord({ lease_holder: 'a', lease_until: 6_000 });
      await store.insert(record);
      expect(await store.due(5_999, 10)).toEqual([]);
      expect(await store.claim(record.key, 'b', 12_000, 5_999)).toBe(false);
      const answered = await store.update(record.key, 0, {
        status: 'pending',
        generation_id: 'g-lease',
        lease_holder: null,
        lease_until: 0,
      });
      expect(answered).toMatchObject({ lease_holder: null, lease_until: 0, version: 1 });
      expect(await store.get(record.key)).toMatchObject({ status: 'pending', lease_holder: null, lease_until: 0 });
      expect(await store.claim(record.key, 'b', 12_000, 1)).toBe(true);
    });

    it('purgeRefused deletes refused intents past the cutoff, bounded by limit, and nothing else', async () => {
      const store = await target.create();
      const refused = (updated_at: number, notified = true) =>
        makeRecord({ owner: 'purge', status: 'failed', error: { code: 'X', message: '', retryable: false }, notified, updated_at });
      const old = [refused(100), refused(200), refused(300)];
      const kept = [
        refused(5_000), // too recent
        refused(100, false), // its handler has not run yet
        makeRecord({ owner: 'purge', status: 'failed', generation_id: 'g-failed', notified: true, updated_at: 100 }), // a generation
        makeRecord({ owner: 'purge', status: 'submitting', updated_at: 100 }), // an intent still in play
      ];
      for (const r of [...old, ...kept]) await store.insert(r);
      expect(await store.purgeRefused(1_000, 2)).toBe(2);
      expect(await store.purgeRefused(1_000, 10)).toBe(1);
      expect(await store.purgeRefused(1_000, 10)).toBe(0);
      for (const r of old) expect(await store.get(r.key)).toBeUndefined();
      for (const r of kept) expect((await store.get(r.key))?.key).toBe(r.key);
    });

    it('recentCompleted: completed records only, most recently updated first, bounded by limit', async () => {
      const store = await target.create();
      // Optional in the interface (stores written before it); every store of this project has it.
      expect(typeof store.recentCompleted).toBe('function');
      const done = (id: string, updated_at: number) =>
        makeRecord({ owner: 'eta', status: 'completed', generation_id: id, generation: generation(id, 'completed'), updated_at });
      const records = [
        done('eta-1', 100),
        done('eta-3', 300),
        done('eta-2', 200),
        makeRecord({ owner: 'eta', status: 'processing', generation_id: 'eta-running', updated_at: 400 }),
        makeRecord({ owner: 'eta', status: 'failed', generation_id: 'eta-failed', updated_at: 500 }),
      ];
      for (const r of records) await store.insert(r);
      const recent = (await store.recentCompleted?.(2)) ?? [];
      expect(recent.map((r) => r.generation_id)).toEqual(['eta-3', 'eta-2']);
      expect(recent[0]?.generation?.status).toBe('completed');
      expect(recent[0]?.params).toEqual(records[1]?.params);
      expect(((await store.recentCompleted?.(10)) ?? []).map((r) => r.generation_id)).toEqual(['eta-3', 'eta-2', 'eta-1']);
    });

    it('keeps every record under concurrent inserts and updates', async () => {
      const store = await target.create();
      const records = Array.from({ length: 40 }, () => makeRecord({ owner: 'busy' }));
      await Promise.all(records.map((r) => store.insert(r)));
      await Promise.all(records.map((r, i) => store.update(r.key, 0, { status: 'pending', generation_id: `busy-${r.key}-${i}` })));
      const read = await Promise.all(records.map((r) => store.get(r.key)));
      expect(read.every((r) => r?.status === 'pending' && r.version === 1)).toBe(true);
    });

    it('owners: the ledger refuses the ones a store cannot keep as written; every other one reads back as itself, alone', async () => {
      const store = await target.create();
      const client = new MediaGenClient({ apiKey: 'svc_live_conformance', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
      const ledger = createGenerationLedger({ client, store });
      // NUL (PostgreSQL refuses it in text); lone surrogates (UTF-8 turns each into U+FFFD, so
      // `x\ud800` would share `x\ufffd`'s generations): refused before the store is asked.
      for (const owner of ['a\0b', 'x\ud800', '\udfff', 'x\udc00\ud800']) {
        await expect(ledger.list(owner)).rejects.toBeInstanceOf(ConfigurationError);
      }
      const owners = ['x\ufffd', 'x', '😀', '\u202e', '\x1b[2J', "' OR 1=1 --", '%_%', '\\', 'É', 'E\u0301', 'x'.repeat(2_000)];
      for (const owner of owners) await store.insert(makeRecord({ owner }));
      for (const owner of owners) {
        expect({ owner, listed: (await store.list(owner, { limit: 10 })).map((r) => r.owner) }).toEqual({ owner, listed: [owner] });
      }
    });

    it('the routes over a ledger on this store answer ids and cursors from outside with 404 and 422, never a 500', async () => {
      const store = await target.create();
      // Never called: a refused id or cursor is answered before the service is asked.
      const client = new MediaGenClient({ apiKey: 'svc_live_conformance', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
      const ledger = createGenerationLedger({ client, store });
      const faults: unknown[] = [];
      const handler = createMediaGenHandler({
        client,
        basePath: '/api',
        identify: () => 'user-a',
        source: ledgerSource(ledger),
        onError: (error) => void faults.push(error),
      });
      // What each store may choke on: NUL (PostgreSQL refuses it in text), lone surrogates,
      // controls, bidi overrides, characters past the BMP, a very long id, SQL and LIKE syntax.
      const hostile = ['\0', 'a\0b', '\ud800', '\udfff\ud800', '\x1b[2J', '\u202e', '😀', 'x'.repeat(10_000), "' OR 1=1 --", '%_%', '\\'];
      const ask = (path: string) => handler(new Request(`http://app.test/api${path}`));
      // A lone surrogate cannot be percent-encoded: a browser sends its bytes as they are.
      const encode = (text: string) => {
        try {
          return encodeURIComponent(text);
        } catch {
          return '%ED%A0%80'; // U+D800's bytes, which no decoder accepts
        }
      };
      for (const text of hostile) {
        const segment = encode(text);
        for (const path of [`/generations/${segment}`, `/generations/${segment}/events`]) {
          expect({ path, status: (await ask(path)).status }).toEqual({ path, status: 404 });
        }
        const cursor = `1700000000000.${segment}`;
        expect([200, 422]).toContain((await ask(`/generations?cursor=${encodeURIComponent(cursor)}`)).status);
        expect((await ask(`/generations?cursor=${segment}`)).status).toBe(422);
      }
      expect(faults).toEqual([]);
    });
  });
}
