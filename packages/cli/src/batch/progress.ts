import type { BatchProgress } from '@mediagen/core/ledger';
import type { Io } from '../io';
import { CLEAR_LINE, styled } from '../terminal-text';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK_MS = 100;
/** Off a terminal: at most one line this often (a 1,000-item batch would print thousands). */
const LOG_EVERY_MS = 5_000;

export interface BatchDisplay {
  update(progress: BatchProgress): void;
  /** A line above the live one (a failure, a note): the live line is drawn again under it. */
  note(line: string): void;
  stop(): void;
}

/**
 * The batch's aggregate progress: settled of total, completed, failed, in hand, queued, credits,
 * elapsed, and the time left at this run's own pace (an estimate: items settled so far per
 * second). On a terminal one line redrawn in place; elsewhere a plain line every few seconds.
 */
export function createBatchDisplay(io: Io, total: number, startedAt = Date.now()): BatchDisplay {
  let state: BatchProgress | undefined;
  let settledAtStart: number | undefined;
  const summary = () => {
    const p = state;
    if (!p) return 'starting';
    settledAtStart ??= p.completed + p.failed;
    const settled = p.completed + p.failed + p.unfinished;
    const elapsedS = (Date.now() - startedAt) / 1000;
    const doneHere = p.completed + p.failed - settledAtStart;
    const left = total - settled;
    const eta = doneHere > 0 && left > 0 ? ` · ~${Math.ceil((left * elapsedS) / doneHere)}s left (estimate, this run's pace)` : '';
    return `${settled}/${total} · ${p.completed} completed · ${p.failed} failed · ${p.running} running · ${p.queued} queued · ${p.credits_used} credits · ${Math.round(elapsedS)}s${eta}`;
  };
  if (!io.errIsTTY) {
    let last = 0;
    let lastLine = '';
    return {
      update(progress) {
        state = progress;
        const settled = progress.completed + progress.failed + progress.unfinished;
        if (Date.now() - last < LOG_EVERY_MS && settled < total) return;
        const line = `batch ${summary()}`;
        if (line === lastLine) return;
        last = Date.now();
        lastLine = line;
        io.err(line);
      },
      note: (line) => io.err(line),
      stop() {},
    };
  }
  let frame = 0;
  const draw = () => {
    const spinner = FRAMES[frame++ % FRAMES.length] as string;
    let line = summary();
    // A line wider than the terminal wraps, and clearing one line would leave the rest behind.
    const width = (io.errColumns || 80) - 3;
    if ([...line].length > width) line = `${[...line].slice(0, width - 1).join('')}…`;
    io.errRaw(styled`${CLEAR_LINE}${io.color.cyan(spinner)} ${line}`);
  };
  const timer = setInterval(draw, TICK_MS);
  timer.unref();
  draw();
  return {
    update(progress) {
      state = progress;
    },
    note(line) {
      io.errRaw(CLEAR_LINE);
      io.err(line);
      draw();
    },
    stop() {
      clearInterval(timer);
      io.errRaw(CLEAR_LINE);
    },
  };
}
