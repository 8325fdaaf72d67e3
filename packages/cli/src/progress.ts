import type { Generation, ModelKind } from '@mediagen/core';
import { TYPICAL_RENDER_SECONDS } from '@mediagen/core/wire';
import type { Io } from './io';
import { CLEAR_LINE, styled } from './terminal-text';

/** "image usually takes 5-15 s", where the contract gives a typical render time for the kind. */
function typicalRender(kind: string | undefined): string | undefined {
  const range = kind === undefined ? undefined : TYPICAL_RENDER_SECONDS[kind];
  return range && `${kind} usually takes ${range[0]}-${range[1]} s`;
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
  { startedAt = Date.now(), heartbeatMs = HEARTBEAT_MS }: { startedAt?: number; heartbeatMs?: number } = {},
): Progress {
  const typical = typicalRender(kind);
  const elapsed = () => `${Math.round((Date.now() - startedAt) / 1000)}s`;
  let status = 'submitted';
  if (!io.errIsTTY) {
    const line = () => io.err(`status ${status} after ${elapsed()}${typical ? ` (${typical})` : ''}`);
    // A long render stays silent otherwise, and CI systems stop jobs that print nothing for long.
    const heartbeat = setInterval(line, heartbeatMs);
    heartbeat.unref();
    return {
      update(generation) {
        status = generation.status;
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
      draw();
    },
    stop() {
      clearInterval(timer);
      io.errRaw(CLEAR_LINE);
    },
  };
}
