import { AbortError } from '../errors';

/** The largest delay a timer takes; a longer one fires at once (Node: `TimeoutOverflowWarning`). */
export const TIMER_MAX_MS = 2 ** 31 - 1;

/**
 * A timer that the caller's signal cancels, rejecting with `AbortError`. Capped at the longest
 * delay a timer takes (about 24.8 days): past it, a timer fires at once instead.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError(undefined, signal?.reason));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, TIMER_MAX_MS),
    );
    // One way to reject, aborted already or later (an aborted signal fires no more events).
    signal?.aborted ? onAbort() : signal?.addEventListener('abort', onAbort);
  });
}
