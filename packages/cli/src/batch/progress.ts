import type { GenerateParams } from '@mediagen/core';
import type { BatchProgress } from '@mediagen/core/ledger';
import type { Io } from '../io';
import { loadRenderHistory } from '../render-history';
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

/** One item's expected render time, and what that rests on. */
export interface ExpectedRender {
  itemMs: number;
  basis: string;
}

/**
 * The batch's aggregate progress: settled of total, completed, failed, in hand, queued, credits,
 * elapsed, and an estimate of the time left: at this run's own pace (items it settled per
 * second; those an earlier run had sent are not its pace) once it has settled a wave, before that
 * from `expected` (each item's expected render, in waves of the items in hand). On a terminal
 * one line redrawn in place; elsewhere a plain line every few seconds.
 */
export function createBatchDisplay(
  io: Io,
  total: number,
  { expected, now = Date.now, startedAt = now() }: { expected?: ExpectedRender | undefined; now?: () => number; startedAt?: number } = {},
): BatchDisplay {
  let state: BatchProgress | undefined;
  const summary = () => {
    const p = state;
    if (!p) return 'starting';
    const settled = p.completed + p.failed + p.unfinished;
    const elapsedMs = now() - startedAt;
    const doneHere = Math.max(0, p.completed + p.failed - p.resumed);
    const left = total - settled;
    let eta = '';
    // A pace is read from a whole wave at least: the first few ends of a wave that started
    // together say little of the items per second.
    const paced = doneHere > 0 && (doneHere >= Math.max(1, p.running) || !expected);
    if (left > 0 && paced) eta = ` · ~${Math.ceil((left * elapsedMs) / doneHere / 1000)}s left (estimate, this run's pace)`;
    else if (left > 0 && expected) {
      const waves = Math.ceil(left / Math.max(1, p.running));
      const ms = Math.max(1000, waves * expected.itemMs - elapsedMs);
      eta = ` · ~${Math.ceil(ms / 1000)}s left (estimate, ${expected.basis})`;
    }
    const elapsedS = elapsedMs / 1000;
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

/**
 * What one item is expected to take, before this run has settled any (the mean of each item's
 * estimate: this machine's past renders, else the contract's typical range for its kind).
 */
export async function expectedRender(
  params: readonly GenerateParams[],
  models: readonly { slug: string; kind?: string }[],
): Promise<ExpectedRender | undefined> {
  const history = await loadRenderHistory();
  const kinds = new Map(models.map((m) => [m.slug, m.kind]));
  const estimates = params.map((p) => history.estimate(p, kinds.get(p.model), 0)).filter((e) => e !== undefined);
  if (estimates.length === 0) return undefined;
  const itemMs = estimates.reduce((sum, e) => sum + e.remaining_p50_ms, 0) / estimates.length;
  return { itemMs, basis: estimates.every((e) => e.basis === 'history') ? 'past renders' : 'typical render times' };
}
