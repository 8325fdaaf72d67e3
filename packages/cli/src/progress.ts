import type { Generation, ModelKind } from '@mediagen/core';
import type { GenerationEta } from '@mediagen/core/ledger';
import { TYPICAL_RENDER_SECONDS } from '@mediagen/core/wire';
import type { Io } from './io';
import { CLEAR_LINE, styled } from './terminal-text';

/** "image usually takes 5-15 s", where the contract gives a typical render time for the kind. */
function typicalRender(kind: string | undefined): string | undefined {
  const range = kind === undefined ? undefined : TYPICAL_RENDER_SECONDS[kind];
  return range && `${kind} usually takes ${range[0]}-${range[1]} s`;
}
/**
 * "~6s left, ≤9s at p90 (estimate from 14 past renders)": the estimate, labelled as one, with
 * what it rests on; undefined when there is none (then the typical range is shown as before).
 */
export function etaText(eta: GenerationEta | undefined, kind: string | undefined): string | undefined {
  if (!eta) return undefined;
  const basis =
    eta.basis === 'history'
      ? `estimate from ${eta.samples} past render${eta.samples === 1 ? '' : 's'}`
      : `estimate: ${typicalRender(kind) ?? 'typical time'}`;
  if (eta.overdue) return `longer than usual (${basis})`;
  const s = (ms: number) => `${Math.max(0, Math.round(ms / 1000))}s`;
  return `~${s(eta.remaining_p50_ms)} left, ≤${s(eta.remaining_p90_ms)} at p90 (${basis})`;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK_MS = 100;
/** Off a terminal: the status line again after this long without a change. */
const HEARTBEAT_MS = 30_000;

export interface Progress {
  update(generation: Generation): void;
  /** Removes the live line (TTY); the next output starts on a clean line. */
  stop(): void;
}

/**
 * The waiting display. On a terminal: one line redrawn in place (spinner, status, elapsed,
 * expected time for the kind). Elsewhere (a pipe, a CI log): one plain line per status
 * change, no control characters, so logs stay readable.
 */
export function createProgress(
  io: Io,
  kind: ModelKind | undefined,
  {
    startedAt = Date.now(),
    heartbeatMs = HEARTBEAT_MS,
    estimate,
  }: {
    startedAt?: number;
    heartbeatMs?: number;
    /** The time left of a running generation, `elapsedMs` into it (the CLI's render history). */
    estimate?: (generation: Generation | undefined, elapsedMs: number) => GenerationEta | undefined;
  } = {},
): Progress {
  let last: Generation | undefined;
  const running = () => status === 'submitted' || status === 'pending' || status === 'processing';
  /** The estimate while it runs, else the contract's typical time for the kind. */
  const expected = () => (estimate && running() ? etaText(estimate(last, Date.now() - startedAt), kind) : undefined) ?? typicalRender(kind);
  const elapsed = () => `${Math.round((Date.now() - startedAt) / 1000)}s`;
  let status = 'submitted';
  if (!io.errIsTTY) {
    const line = () => {
      const typical = expected();
      io.err(`status ${status} after ${elapsed()}${typical ? ` (${typical})` : ''}`);
    };
    // A long render stays silent otherwise, and CI systems stop jobs that print nothing for long.
    const heartbeat = setInterval(line, heartbeatMs);
    heartbeat.unref();
    return {
      update(generation) {
        status = generation.status;
        last = generation;
        heartbeat.refresh();
        line();
      },
      stop() {
        clearInterval(heartbeat);
      },
    };
  }
  const { color } = io;
  let frame = 0;
  const draw = () => {
    const spinner = FRAMES[frame++ % FRAMES.length]!;
    const typical = expected();
    const extra = typical ? ` · ${typical}` : '';
    // A line wider than the terminal wraps, and clearing one line would leave the rest behind.
    const fits = [...`${spinner} ${status} · ${elapsed()}${extra}`].length < (io.errColumns || 80);
    // The status is the service's text: escaped by `styled`, then made bold.
    io.errRaw(
      styled`${CLEAR_LINE}${color.cyan(spinner)} ${color.bold(status)} ${color.dim('·')} ${elapsed()}${fits ? color.dim(extra) : ''}`,
    );
  };
  const timer = setInterval(draw, TICK_MS);
  // Never keeps the process alive on its own.
  timer.unref();
  draw();
  return {
    update(generation) {
      status = generation.status;
      last = generation;
      draw();
    },
    stop() {
      clearInterval(timer);
      io.errRaw(CLEAR_LINE);
    },
  };
}
