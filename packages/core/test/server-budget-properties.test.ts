import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BudgetCaps, capsOf, MemoryBudgetStore } from '../src/server';

const caps = (creditsPerPeriod: number, inFlight: number): BudgetCaps => ({
  creditsPerPeriod,
  periodMs: 86_400_000,
  submitsPerMinute: -1,
  inFlight,
});
const NOW = 1_800_000_000_000;

/** One step a handler can take on a user's budget. */
const step = fc.oneof(
  fc.record({
    op: fc.constant('reserve' as const),
    key: fc.integer({ min: 0, max: 15 }),
    credits: fc.integer({ min: 20, max: 40 }),
    extra: fc.constantFrom(0, 20),
  }),
  fc.record({ op: fc.constant('bind' as const), key: fc.integer({ min: 0, max: 15 }) }),
  fc.record({ op: fc.constant('release' as const), key: fc.integer({ min: 0, max: 15 }) }),
  fc.record({
    op: fc.constant('settle' as const),
    key: fc.integer({ min: 0, max: 15 }),
    charged: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }),
  }),
);

describe('budgets, whatever the order of reserves, binds, releases and settles', () => {
  it('never count past the cap or the slots, and always equal the sum of what each key holds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 4 }),
        fc.array(fc.array(step, { maxLength: 6 }), { maxLength: 12 }),
        async (cap, slots, rounds) => {
          const store = new MemoryBudgetStore();
          const c = caps(cap, slots);
          /** What each key holds by the model: its reservation, its charge, or nothing. */
          const held = new Map<number, { credits: number; extra: number; settled: boolean; charged: number | null; bound: boolean }>();
          /** Ends seen before any bind of their generation (a webhook that outran the 202): the first is kept for the bind. */
          const ended = new Map<number, number | null>();
          for (const round of rounds) {
            // A round's reserves first (a key's bind or release only ever follows its reserve: the
            // handler calls them once the submit answered or failed), then its other steps at once,
            // as concurrent requests would run them. The memory store applies each step when it is
            // called (its work runs before its first await), so the model follows in that order:
            // updated as each step starts, not when its promise resolves (a bind that settles
            // resolves after a release started beside it, yet came first).
            for (const s of round) {
              if (s.op !== 'reserve') continue;
              const verdict = await store.reserve({
                owner: 'u',
                key: `k${s.key}`,
                credits: s.credits,
                extraCredits: s.extra,
                caps: c,
                now: NOW,
              });
              if (verdict.ok && !verdict.replay)
                held.set(s.key, { credits: s.credits, extra: s.extra, settled: false, charged: null, bound: false });
            }
            await Promise.all(
              round.map((s) => {
                if (s.op === 'reserve') return undefined;
                if (s.op === 'bind') {
                  const done = store.bind(`k${s.key}`, `g${s.key}`, NOW);
                  const h = held.get(s.key);
                  if (h) {
                    h.bound = true;
                    if (ended.has(s.key)) {
                      if (!h.settled) Object.assign(h, { settled: true, charged: ended.get(s.key) });
                      ended.delete(s.key);
                    }
                  }
                  return done;
                }
                if (s.op === 'release') {
                  const done = store.release(`k${s.key}`, NOW);
                  if (held.get(s.key) && !held.get(s.key)!.bound) held.delete(s.key); // only an unanswered one
                  return done;
                }
                // Charges (0–20) never pass a reservation (20–40): the estimate is the contract's upper bound.
                const h = held.get(s.key);
                const settles = h?.bound === true && !h.settled;
                const done = store.settle(`g${s.key}`, s.charged, NOW);
                if (settles && h) Object.assign(h, { settled: true, charged: s.charged });
                else if (!h?.bound && !ended.has(s.key)) ended.set(s.key, s.charged);
                return done.then((settled) => expect(settled).toBe(settles));
              }),
            );
            const usage = await store.usage('u', c, NOW);
            const expected = [...held.values()].reduce(
              (sum, h) => sum + h.extra + (h.settled && h.charged !== null ? h.charged : h.credits),
              0,
            );
            expect(usage.usedCredits).toBeLessThanOrEqual(cap);
            expect(usage.inFlight).toBeLessThanOrEqual(slots);
            expect(usage.usedCredits).toBe(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('limits that are no whole number of 0 or more are refused, never read as no limit', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(Number.NaN), fc.constant(-1), fc.constant(Number.POSITIVE_INFINITY), fc.string(), fc.constant(null)),
        (bad) => {
          expect(() => capsOf({ creditsPerPeriod: bad as never })).toThrow(/creditsPerPeriod must be a number/);
        },
      ),
    );
    expect(capsOf({})).toEqual({ creditsPerPeriod: -1, periodMs: 30 * 86_400_000, submitsPerMinute: -1, inFlight: -1 });
    expect(capsOf({ creditsPerPeriod: 10.7, inFlight: 0 })).toMatchObject({ creditsPerPeriod: 10, inFlight: 0 });
  });
});
