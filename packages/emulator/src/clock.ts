/**
 * The emulator's wall clock: real time plus an offset that tests move forward with
 * `POST /__emulator/clock`. Everything the contract ties to calendar time (link expiry,
 * billing cycles, `until`, rate-limit windows, timestamps) reads this clock, so a test can
 * jump three days ahead without waiting. Render progress runs on real time scaled by
 * `timeScale` instead, so that jumping the clock never completes half the queue at once.
 */
export class Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  get offset(): number {
    return this.offsetMs;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}

/** Monotonic milliseconds; immune to both wall-clock jumps and the emulator offset. */
export const monotonic = (): number => performance.now();
