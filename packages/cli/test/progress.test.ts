import type { Generation } from '@mediagen/core';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createIo } from '../src/io';
import { createProgress } from '../src/progress';
import { hostileText, STEERING } from './terminal-steering';

function streams(stderr: { isTTY?: boolean; columns?: number }) {
  const written = { out: '', err: '' };
  const io = createIo(
    {
      stdout: { write: (s: string) => ((written.out += s), true) } as never,
      stderr: { ...stderr, write: (s: string) => ((written.err += s), true) } as never,
    },
    { color: false },
  );
  return { io, written };
}

const at = (status: Generation['status']) => ({ status }) as Generation;

describe('progress', () => {
  it('on a terminal: one line redrawn in place, cleared at the end', () => {
    const { io, written } = streams({ isTTY: true, columns: 120 });
    const progress = createProgress(io, 'video');
    progress.update(at('processing'));
    progress.stop();
    const frames = written.err.split('\r\x1b[2K').filter(Boolean);
    expect(frames.at(-1)).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] processing · 0s · video usually takes 30-180 s$/);
    expect(written.err.endsWith('\r\x1b[2K')).toBe(true);
    expect(written.err).not.toContain('\n');
  });

  it('a status of any text (fast-check) is shown inert: the line is cleared only where the CLI clears it', () => {
    vi.useFakeTimers();
    try {
      fc.assert(
        fc.property(fc.array(hostileText, { minLength: 1, maxLength: 3 }), (statuses) => {
          const { io, written } = streams({ isTTY: true, columns: 200 });
          const progress = createProgress(io, 'image');
          for (const status of statuses) progress.update(at(status as Generation['status']));
          progress.stop();
          // One clear per draw (the first, one per update) and one at the end: none from the status.
          const parts = written.err.split('\r\x1b[2K');
          expect(parts).toHaveLength(statuses.length + 3);
          for (const part of parts) expect(part).not.toMatch(STEERING);
        }),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('on a narrow terminal the line drops the expected time instead of wrapping', () => {
    const { io, written } = streams({ isTTY: true, columns: 30 });
    const progress = createProgress(io, 'image');
    progress.update(at('pending'));
    progress.stop();
    expect(written.err).toContain('pending · 0s');
    expect(written.err).not.toContain('usually');
  });

  it('off a terminal: a plain line per change, and again every 30 s while nothing changes', () => {
    vi.useFakeTimers();
    try {
      const { io, written } = streams({});
      const progress = createProgress(io, 'image');
      progress.update(at('pending'));
      vi.advanceTimersByTime(2_000);
      progress.update(at('processing'));
      vi.advanceTimersByTime(65_000);
      progress.stop();
      vi.advanceTimersByTime(65_000);
      expect(written.err.trim().split('\n')).toEqual([
        'status pending after 0s (image usually takes 5-15 s)',
        'status processing after 2s (image usually takes 5-15 s)',
        'status processing after 32s (image usually takes 5-15 s)',
        'status processing after 62s (image usually takes 5-15 s)',
      ]);
      expect(written.err).not.toContain('\r');
      expect(written.err).not.toContain('\x1b');
    } finally {
      vi.useRealTimers();
    }
  });

  it('kinds the contract gives no render time for show none', () => {
    const { io, written } = streams({});
    const progress = createProgress(io, 'audio');
    progress.update(at('pending'));
    progress.stop();
    expect(written.err).toBe('status pending after 0s\n');
  });
});
