import type { BatchProgress } from '@mediagen/core/ledger';
import { describe, expect, it } from 'vitest';
import { createBatchDisplay } from '../src/batch/progress';
import { createIo } from '../src/io';

/** Off a terminal, on a clock that stands still at `elapsedMs` into the run. */
function display(expected: { itemMs: number; basis: string }, elapsedMs = 0) {
  let err = '';
  const io = createIo(
    {
      stdout: { write: () => true } as never,
      stderr: { isTTY: false, write: (s: string) => ((err += s), true) } as never,
    },
    { color: false },
  );
  const shown = createBatchDisplay(io, 12, { expected, startedAt: 1_000_000, now: () => 1_000_000 + elapsedMs });
  return { shown, lines: () => err.trim().split('\n') };
}

const progress = (p: Partial<BatchProgress>): BatchProgress => ({
  total: 12,
  completed: 0,
  failed: 0,
  unfinished: 0,
  running: 0,
  queued: 0,
  resumed: 0,
  credits_used: 0,
  ...p,
});

describe('the batch progress line', () => {
  it('before anything settled: the time left from the expected render, in waves of the items in hand, with its basis', () => {
    const { shown, lines } = display({ itemMs: 10_000, basis: 'typical render times' });
    shown.update(progress({ running: 5, queued: 7 }));
    // 12 left in waves of 5: 3 waves of 10 s.
    expect(lines().at(-1)).toMatch(/^batch 0\/12 · .* · 0s · ~30s left \(estimate, typical render times\)$/);
  });

  it("items an earlier run had sent are not this run's pace: a resume does not promise their speed", () => {
    // Ten minutes into the run: 5 items resumed and settled, none of this run's own yet.
    const { shown, lines } = display({ itemMs: 10_000, basis: 'past renders' }, 600_000);
    shown.update(progress({ completed: 5, resumed: 5, running: 5, queued: 2 }));
    expect(lines().at(-1)).toMatch(/~\d+s left \(estimate, past renders\)$/);
    expect(lines().at(-1)).not.toContain("this run's pace");
  });

  it("once a wave of this run's own settled: its pace", () => {
    const { shown, lines } = display({ itemMs: 10_000, basis: 'typical render times' }, 20_000);
    shown.update(progress({ completed: 5, running: 5, queued: 2 }));
    // 5 settled in 20 s, 7 left: 28 s at that pace.
    expect(lines().at(-1)).toMatch(/~28s left \(estimate, this run's pace\)$/);
  });
});
