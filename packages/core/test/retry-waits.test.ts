import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoff } from '../src/http/transport';

const BACKOFF_FLOOR = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000];

afterEach(() => vi.restoreAllMocks());

describe('backoff: the contract floor (1 s, doubling, capped at 30 s) is never shortened', () => {
  it('for every attempt and every draw of the jitter, the wait is at least the floor and at most 30 s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, draw) => {
        vi.spyOn(Math, 'random').mockReturnValue(draw);
        const floor = BACKOFF_FLOOR[Math.min(attempt, BACKOFF_FLOOR.length) - 1]!;
        const wait = backoff(attempt);
        expect(wait).toBeGreaterThanOrEqual(floor);
        expect(wait).toBeLessThanOrEqual(30_000);
      }),
      { numRuns: 500 },
    );
  });

  it('still spreads clients out below the cap', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    expect(backoff(1)).toBeGreaterThan(1_000);
    expect(backoff(4)).toBeGreaterThan(8_000);
  });
});
