import type { BudgetCaps, BudgetStore, BudgetStoreTimes } from '@mediagen/core/server';
import { afterAll, describe, expect, it } from 'vitest';

export interface BudgetStoreTarget {
  /** Shown in the test names. */
  name: string;
  /** A new, empty store (its own tables or prefix) for one test, with these lapse times. */
  create(times?: BudgetStoreTimes): Promise<BudgetStore> | BudgetStore;
  /**
   * Another store on the same data as `store` (its own connection or pool), as a second
   * instance of the app would have. Default: `store` itself (an in-memory store has no other).
   */
  peer?(store: BudgetStore): Promise<BudgetStore> | BudgetStore;
  /** Called once after every test ran (close pools and connections, drop schemas). */
  close?(): Promise<void> | void;
}

const DAY = 86_400_000;
/** A fixed clock inside a day period, far from its edges: every test moves it explicitly. */
const T0 = 20_000 * DAY + 3_600_000;
const caps = (over: Partial<BudgetCaps> = {}): BudgetCaps => ({
  creditsPerPeriod: 100,
  periodMs: DAY,
  submitsPerMinute: -1,
  inFlight: -1,
  ...over,
});
let serial = 0;
const key = (label = 'k') => `${label}-${++serial}-${Math.random().toString(36).slice(2)}`;
const gen = () => `gen-${++serial}-${Math.random().toString(36).slice(2)}`;

/**
 * What the handler's budgets rely on from every `BudgetStore`: one line per store package,
 * `describeBudgetStoreConformance({ name, create, peer })`, in its own test file. Every clock is
 * the caller's `now` (no test waits): periods, the submit minute and slot lapses are moved by it.
 */
export function describeBudgetStoreConformance(target: BudgetStoreTarget): void {
  describe(`BudgetStore conformance: ${target.name}`, () => {
    afterAll(async () => {
      await target.close?.();
    });
    const peerOf = async (store: BudgetStore) => (target.peer ? target.peer(store) : store);
    const reserve = (store: BudgetStore, owner: string, credits: number, c = caps(), now = T0, k = key(), extraCredits = 0) =>
      store.reserve({ owner, key: k, credits, extraCredits, caps: c, now });

    it('reserves up to the last credit of the period, and not one more', async () => {
      const store = await target.create();
      const first = await reserve(store, 'u1', 60);
      expect(first).toMatchObject({
        ok: true,
        replay: false,
        usage: { usedCredits: 60, remainingCredits: 40, inFlight: 1, submitsLastMinute: 1 },
      });
      expect(first.usage.resetsAt).toBe(Math.floor(T0 / DAY) * DAY + DAY);
      expect(await reserve(store, 'u1', 41)).toMatchObject({
        ok: false,
        limit: 'credits',
        usage: { usedCredits: 60, remainingCredits: 40 },
      });
      expect(await reserve(store, 'u1', 40)).toMatchObject({ ok: true, usage: { usedCredits: 100, remainingCredits: 0 } });
      expect(await reserve(store, 'u1', 1)).toMatchObject({ ok: false, limit: 'credits' });
      // Another user's budget is their own.
      expect(await reserve(store, 'u2', 100)).toMatchObject({ ok: true, usage: { remainingCredits: 0 } });
      expect(await store.usage('u3', caps(), T0)).toMatchObject({
        usedCredits: 0,
        remainingCredits: 100,
        inFlight: 0,
        submitsLastMinute: 0,
      });
    });

    it('counts the extra credits (enhance) with the price, and keeps them when settled', async () => {
      const store = await target.create();
      const k = key();
      expect(await reserve(store, 'u', 4, caps(), T0, k, 20)).toMatchObject({ ok: true, usage: { usedCredits: 24 } });
      const id = gen();
      await store.bind(k, id, T0);
      expect(await store.settle(id, 0, T0)).toBe(true);
      expect((await store.usage('u', caps(), T0)).usedCredits).toBe(20);
    });

    it('a replay of a key counts nothing again, open or settled', async () => {
      const store = await target.create();
      const k = key();
      await reserve(store, 'u', 30, caps(), T0, k);
      expect(await reserve(store, 'u', 30, caps(), T0, k)).toMatchObject({
        ok: true,
        replay: true,
        usage: { usedCredits: 30, inFlight: 1, submitsLastMinute: 1 },
      });
      const id = gen();
      await store.bind(k, id, T0);
      await store.settle(id, 25, T0);
      expect(await reserve(store, 'u', 30, caps(), T0, k)).toMatchObject({
        ok: true,
        replay: true,
        usage: { usedCredits: 25, inFlight: 0 },
      });
      // A replay is answered even when the limits are full: it sends nothing new.
      expect(await reserve(store, 'u', 30, caps({ creditsPerPeriod: 0, inFlight: 0, submitsPerMinute: 0 }), T0, k)).toMatchObject({
        ok: true,
        replay: true,
      });
    });

    it('settles once to the final charge: lower, refunded (0), unknown (null keeps the reservation)', async () => {
      const store = await target.create();
      const ids = [gen(), gen(), gen()];
      for (const id of ids) {
        const k = key();
        await reserve(store, 'u', 20, caps(), T0, k);
        await store.bind(k, id, T0);
      }
      expect(await store.usage('u', caps(), T0)).toMatchObject({ usedCredits: 60, inFlight: 3 });
      expect(await store.settle(ids[0]!, 7, T0)).toBe(true);
      expect(await store.settle(ids[1]!, 0, T0)).toBe(true);
      expect(await store.settle(ids[2]!, null, T0)).toBe(true);
      expect(await store.usage('u', caps(), T0)).toMatchObject({ usedCredits: 27, inFlight: 0 });
      // Twice (a webhook and a read, on two instances) changes nothing.
      expect(await store.settle(ids[0]!, 0, T0)).toBe(false);
      expect(await store.settle(gen(), 5, T0)).toBe(false);
      expect((await store.usage('u', caps(), T0)).usedCredits).toBe(27);
    });

    it('an end seen before its bind (the webhook outran the 202) is settled by the bind, once', async () => {
      const a = await target.create();
      const b = await peerOf(a);
      const k = key();
      const id = gen();
      await reserve(a, 'u', 20, caps(), T0, k);
      expect(await b.settle(id, 0, T0)).toBe(false);
      expect(await b.settle(id, 0, T0)).toBe(false);
      await a.bind(k, id, T0);
      expect(await a.usage('u', caps(), T0)).toMatchObject({ usedCredits: 0, inFlight: 0 });
      expect(await a.settle(id, 20, T0)).toBe(false);
      await a.bind(k, id, T0);
      expect((await b.usage('u', caps(), T0)).usedCredits).toBe(0);
      // Racing on two instances, many times: each generation ends settled exactly once, whichever came first.
      const pairs = Array.from({ length: 20 }, () => ({ k: key(), id: gen() }));
      for (const { k } of pairs) await reserve(a, 'r', 5, caps({ creditsPerPeriod: -1 }), T0, k);
      await Promise.all(pairs.flatMap(({ k, id }) => [a.bind(k, id, T0), b.settle(id, 2, T0)]));
      expect(await a.usage('r', caps({ creditsPerPeriod: -1 }), T0)).toMatchObject({ usedCredits: 40, inFlight: 0 });
    });

    it('release gives the credits and the slot back, keeps the submit counted, and forgets the key', async () => {
      const store = await target.create();
      const k = key();
      await reserve(store, 'u', 50, caps(), T0, k);
      await store.release(k, T0);
      expect(await store.usage('u', caps(), T0)).toMatchObject({ usedCredits: 0, inFlight: 0, submitsLastMinute: 1 });
      // The same key again is a new reservation (the refused submit billed nothing; a resend may).
      expect(await reserve(store, 'u', 50, caps(), T0, k)).toMatchObject({ ok: true, replay: false, usage: { usedCredits: 50 } });
      // A bound reservation is not released (its submit was answered: billed), nor a settled one.
      const bound = key();
      await reserve(store, 'u', 7, caps(), T0, bound);
      await store.bind(bound, gen(), T0);
      await store.release(bound, T0);
      expect((await store.usage('u', caps(), T0)).usedCredits).toBe(57);
      const id = gen();
      await store.bind(k, id, T0);
      await store.settle(id, 50, T0);
      await store.release(k, T0);
      await store.release(key(), T0);
      expect((await store.usage('u', caps(), T0)).usedCredits).toBe(57);
    });

    it('holds at most inFlight generations; a settle frees a slot; an unsettled slot lapses after its TTL', async () => {
      const store = await target.create({ inFlightTtlMs: 10 * 60_000 });
      const c = caps({ inFlight: 2, creditsPerPeriod: -1 });
      const [k1, k2] = [key(), key()];
      await reserve(store, 'u', 1, c, T0, k1);
      await reserve(store, 'u', 1, c, T0, k2);
      expect(await reserve(store, 'u', 1, c)).toMatchObject({
        ok: false,
        limit: 'in_flight',
        usage: { inFlight: 2, remainingCredits: null, resetsAt: null },
      });
      const id = gen();
      await store.bind(k1, id, T0);
      await store.settle(id, 1, T0);
      expect(await reserve(store, 'u', 1, c)).toMatchObject({ ok: true, usage: { inFlight: 2 } });
      // Ten minutes on, the two never settled have lapsed (their instance died): the slots are free again.
      expect(await store.usage('u', c, T0 + 10 * 60_000 + 1)).toMatchObject({ inFlight: 0 });
      expect(await reserve(store, 'u', 1, c, T0 + 10 * 60_000 + 1)).toMatchObject({ ok: true, usage: { inFlight: 1 } });
    });

    it('counts submits in a sliding minute', async () => {
      const store = await target.create();
      const c = caps({ submitsPerMinute: 2 });
      await reserve(store, 'u', 1, c, T0);
      await reserve(store, 'u', 1, c, T0 + 30_000);
      const refused = await reserve(store, 'u', 1, c, T0 + 59_000);
      expect(refused).toMatchObject({ ok: false, limit: 'submits', usage: { submitsLastMinute: 2, minuteFreesAt: T0 + 60_000 } });
      expect(await reserve(store, 'u', 1, c, T0 + 60_001)).toMatchObject({ ok: true, usage: { submitsLastMinute: 2 } });
    });

    it('starts each period at 0; a generation of the last period settles there, not in the new one', async () => {
      const store = await target.create();
      const k = key();
      await reserve(store, 'u', 80, caps(), T0, k);
      const next = Math.floor(T0 / DAY) * DAY + DAY;
      expect(await store.usage('u', caps(), next)).toMatchObject({ usedCredits: 0, remainingCredits: 100, resetsAt: next + DAY });
      expect(await reserve(store, 'u', 100, caps(), next)).toMatchObject({ ok: true, usage: { usedCredits: 100 } });
      const id = gen();
      await store.bind(k, id, next);
      expect(await store.settle(id, 0, next)).toBe(true);
      expect(await store.usage('u', caps(), next)).toMatchObject({ usedCredits: 100, inFlight: 1 });
    });

    it('keeps owners and keys of any text apart (quotes, colons, braces, unicode, long)', async () => {
      const store = await target.create();
      const owners = ["o'; DROP TABLE x; --", 'a:b', 'a', '{tag}', 'ü🦊\u0001', 'x'.repeat(300)];
      for (const [i, owner] of owners.entries()) {
        const k = `${owner}:${i}:${'k'.repeat(200)}`;
        expect(await reserve(store, owner, 10 + i, caps(), T0, k)).toMatchObject({ ok: true });
        const id = `${owner}-id`;
        await store.bind(k, id, T0);
      }
      for (const [i, owner] of owners.entries()) expect((await store.usage(owner, caps(), T0)).usedCredits).toBe(10 + i);
      expect(await store.settle(`${owners[0]}-id`, 0, T0)).toBe(true);
      expect((await store.usage(owners[0]!, caps(), T0)).usedCredits).toBe(0);
      expect((await store.usage(owners[2]!, caps(), T0)).usedCredits).toBe(12);
    });

    it('is atomic across instances: many reservations at once never pass any limit by one', async () => {
      const a = await target.create();
      const b = await peerOf(a);
      const c = caps({ creditsPerPeriod: 30, inFlight: 8, submitsPerMinute: 9 });
      // 60 reservations of 3 credits at once, half through each instance, for each of 3 users.
      const results = await Promise.all(
        ['x', 'y', 'z'].flatMap((owner) => Array.from({ length: 60 }, (_, i) => reserve(i % 2 ? a : b, owner, 3, c))),
      );
      for (const owner of ['x', 'y', 'z']) {
        const usage = await a.usage(owner, c, T0);
        // The in-flight limit (8) binds first: 8 reservations, 24 credits, never a ninth.
        expect(usage).toMatchObject({ usedCredits: 24, inFlight: 8, submitsLastMinute: 8 });
      }
      expect(results.filter((r) => r.ok)).toHaveLength(24);
      // Credits bind when slots do not: 40 reservations of 4 credits against 30 credits: 7 pass (28).
      const d = caps({ creditsPerPeriod: 30 });
      const more = await Promise.all(Array.from({ length: 40 }, (_, i) => reserve(i % 2 ? a : b, 'w', 4, d)));
      expect(more.filter((r) => r.ok)).toHaveLength(7);
      expect((await b.usage('w', d, T0)).usedCredits).toBe(28);
      // Settles racing on two instances: each generation settles once.
      const keys = Array.from({ length: 6 }, () => key());
      const ids = keys.map(() => gen());
      for (const [i, k] of keys.entries()) {
        await reserve(a, 'v', 5, caps(), T0, k);
        await a.bind(k, ids[i]!, T0);
      }
      const settled = await Promise.all(ids.flatMap((id) => [a.settle(id, 1, T0), b.settle(id, 1, T0)]));
      expect(settled.filter(Boolean)).toHaveLength(6);
      expect((await a.usage('v', caps(), T0)).usedCredits).toBe(6);
    });
  });
}
