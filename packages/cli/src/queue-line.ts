import type { GateWait } from '@mediagen/core';
import type { Io } from './io';
import { CLEAR_LINE, styled } from './terminal-text';

/**
 * A submit waiting for a slot, in the shape a queueing gate store tells `onQueue` (`GateWait`):
 * here what a `429` from the service said (another process or app on the account holds the
 * slots), with the account's counts when the 429 carried them.
 */
export interface SlotWait extends GateWait {
  inFlight?: number | undefined;
  maxConcurrent?: number | undefined;
}

/** What holds the line, in words; any other value (a shared store's) is shown as data, escaped by the caller. */
function heldBy(wait: SlotWait): string {
  switch (wait.limit) {
    case 'max_concurrent': {
      const counts = wait.inFlight !== undefined && wait.maxConcurrent !== undefined;
      return `max_concurrent${counts ? ` (${wait.inFlight}/${wait.maxConcurrent} in flight)` : ''}`;
    }
    case 'per_minute':
      return 'the per-minute rate';
    case 'retry_after':
      return 'a 429 Retry-After';
    case undefined:
      return "the account's limits";
    default:
      return String(wait.limit);
  }
}

/**
 * "waiting for a slot · #1 in line · max_concurrent (5/5 in flight) · can go in 1s": short
 * enough for an 80-column terminal; plain data, escaped where it is written.
 */
export function slotWaitText(wait: SlotWait, now = Date.now()): string {
  const when =
    wait.notBefore === undefined ? 'when a generation ends' : `can go in ${Math.max(0, Math.ceil((wait.notBefore - now) / 1000))}s`;
  return `waiting for a slot · #${wait.position} in line · ${heldBy(wait)} · ${when}`;
}

const TICK_MS = 250;

export interface SlotWaitLine {
  show(wait: SlotWait): void;
  /** Removes the live line (TTY); the next output starts on a clean line. */
  stop(): void;
}

/**
 * The waiting-for-a-slot line. On a terminal: redrawn in place (its countdown ticks). Elsewhere:
 * one plain line each time the position, the limit or the account's counts change, so a 429
 * met every second does not fill a log with the same line.
 */
export function createSlotWaitLine(io: Io): SlotWaitLine {
  let wait: SlotWait | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastKey = '';
  const draw = () => {
    if (!wait) return;
    const text = slotWaitText(wait);
    // A line wider than the terminal wraps, and clearing one line would leave the rest behind.
    const columns = io.errColumns || 80;
    const fitted = [...text].length < columns ? text : `${[...text].slice(0, columns - 2).join('')}…`;
    io.errRaw(styled`${CLEAR_LINE}${io.color.dim(fitted)}`);
  };
  return {
    show(next) {
      wait = next;
      if (!io.errIsTTY) {
        const key = `${next.position}|${next.limit}|${next.inFlight}|${next.maxConcurrent}`;
        if (key !== lastKey) io.err(slotWaitText(next));
        lastKey = key;
        return;
      }
      if (!timer) {
        timer = setInterval(draw, TICK_MS);
        // Never keeps the process alive on its own.
        timer.unref();
      }
      draw();
    },
    stop() {
      if (timer) {
        clearInterval(timer);
        io.errRaw(CLEAR_LINE);
      }
      timer = undefined;
      wait = undefined;
    },
  };
}
