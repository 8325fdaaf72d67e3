import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EtaEstimator } from '../src/ledger';
import { renderKey } from '../src/ledger/eta';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const shape = fc.record({
  model: fc.constantFrom('image-fast', 'video-standard', 'audio-voice', 'x'.repeat(300)),
  duration: fc.option(fc.oneof(fc.integer({ min: -5, max: 20 }), fc.string({ maxLength: 5 })), { nil: undefined }),
  resolution: fc.option(fc.constantFrom('720p', '1080P', '2k', {}), { nil: undefined }),
  number_results: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
});
const duration = fc.oneof(fc.double({ min: -1e3, max: 1e7, noNaN: false }), fc.integer({ min: 0, max: 600_000 }));

describe('EtaEstimator', () => {
  it('never says p50 > p90, never a negative time, whatever it was fed and however long the render has run', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(shape, duration), { maxLength: 200 }),
        shape,
        fc.constantFrom('image', 'video', 'audio', undefined),
        fc.oneof(fc.double({ min: -1e6, max: 1e7 }), fc.constant(Number.NaN)),
        fc.integer({ min: 1, max: 8 }),
        (fed, asked, kind, elapsedMs, minSamples) => {
          const estimator = new EtaEstimator({ minSamples, samplesPerShape: 16 });
          for (const [s, d] of fed) estimator.record(s, d);
          const eta = estimator.estimate(asked, { kind, elapsedMs, now: NOW });
          if (!eta) return;
          expect(eta.estimate).toBe(true);
          expect(eta.remaining_p50_ms).toBeGreaterThanOrEqual(0);
          expect(eta.remaining_p50_ms).toBeLessThanOrEqual(eta.remaining_p90_ms);
          expect(Number.isFinite(eta.remaining_p90_ms)).toBe(true);
          expect(eta.as_of).toBe('2026-01-01T00:00:00.000Z');
          if (eta.overdue) expect([eta.remaining_p50_ms, eta.remaining_p90_ms]).toEqual([0, 0]);
        },
      ),
    );
  });

  it('falls back to the contract typical range without history (and says so), to nothing where the contract has none', () => {
    fc.assert(
      fc.property(shape, fc.integer({ min: 0, max: 4 }), (asked, fewer) => {
        const estimator = new EtaEstimator({ minSamples: 5 });
        for (let i = 0; i < fewer; i++) estimator.record(asked, 1_000 * (i + 1));
        const image = estimator.estimate(asked, { kind: 'image', elapsedMs: 0, now: NOW });
        // Image 5-15 s read as uniform: half done by 10 s, nine in ten by 14 s.
        expect(image).toEqual({
          estimate: true,
          remaining_p50_ms: 10_000,
          remaining_p90_ms: 14_000,
          as_of: '2026-01-01T00:00:00.000Z',
          basis: 'typical',
          samples: 0,
          overdue: false,
        });
        expect(estimator.estimate(asked, { kind: 'video', elapsedMs: 60_000, now: NOW })).toMatchObject({
          basis: 'typical',
          remaining_p50_ms: 60_000, // 60 s in: what is left of 60-180 s, halfway
          remaining_p90_ms: 108_000,
        });
        expect(estimator.estimate(asked, { kind: 'video', elapsedMs: 200_000, now: NOW })).toMatchObject({ overdue: true });
        expect(estimator.estimate(asked, { kind: 'audio', elapsedMs: 0, now: NOW })).toBeUndefined();
        expect(estimator.estimate(asked, { elapsedMs: 0, now: NOW })).toBeUndefined();
      }),
    );
  });

  it('keeps at most maxShapes × samplesPerShape numbers, whatever it is fed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.tuple(shape, fc.integer({ min: 0, max: 1e6 })), { maxLength: 400 }),
        (maxShapes, samplesPerShape, fed) => {
          const estimator = new EtaEstimator({ maxShapes, samplesPerShape });
          for (const [s, d] of fed) estimator.record(s, d);
          expect(estimator.size).toBeLessThanOrEqual(maxShapes * samplesPerShape);
        },
      ),
    );
    const estimator = new EtaEstimator({ maxShapes: 3, samplesPerShape: 4 });
    for (let i = 0; i < 10_000; i++) estimator.record({ model: `m${i % 50}`, duration: i % 7 }, i);
    expect(estimator.size).toBeLessThanOrEqual(12);
    for (let i = 0; i < 10_000; i++) estimator.record({ model: `m${i % 3}` }, i);
    expect(estimator.size).toBe(12);
  });

  it('from history: the remaining time among past renders that ran at least this long, per model and render params', () => {
    const estimator = new EtaEstimator({ minSamples: 5 });
    const short = { model: 'video-standard', duration: 5, resolution: '720p' };
    const long = { ...short, duration: 10 };
    for (let s = 1; s <= 10; s++) estimator.record(short, s * 10_000); // 10 s … 100 s
    for (let s = 1; s <= 10; s++) estimator.record(long, s * 20_000);
    const at = (elapsedMs: number, of = short) => estimator.estimate(of, { kind: 'video', elapsedMs, now: NOW });
    expect(at(0)).toMatchObject({ basis: 'history', samples: 10, remaining_p50_ms: 55_000, remaining_p90_ms: 91_000, overdue: false });
    // 45 s in: of the renders still going (50 … 100 s), half were done 30 s later.
    expect(at(45_000)).toMatchObject({ remaining_p50_ms: 30_000, remaining_p90_ms: 50_000 });
    expect(at(100_000)).toMatchObject({ remaining_p50_ms: 0, remaining_p90_ms: 0, overdue: true });
    expect(at(0, long)).toMatchObject({ remaining_p50_ms: 110_000 });
    // Resolution case and a prompt change nothing; another resolution is another history.
    expect(renderKey({ ...short, resolution: '720P' })).toBe(renderKey(short));
    expect(at(0, { ...short, resolution: '1080p' })).toMatchObject({ basis: 'typical' });
    // Only the newest renders are kept: the history follows a service that got faster.
    const recent = new EtaEstimator({ samplesPerShape: 5, minSamples: 5 });
    for (let i = 0; i < 5; i++) recent.record(short, 100_000);
    for (let i = 0; i < 5; i++) recent.record(short, 20_000);
    expect(recent.estimate(short, { elapsedMs: 0, now: NOW })).toMatchObject({ remaining_p50_ms: 20_000 });
  });
});
