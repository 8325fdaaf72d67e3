/**
 * Ctrl-C as an AbortSignal for the span of `run`: the first SIGINT aborts what is in flight
 * (the command then says how to resume); the listener is gone afterwards, so a second
 * Ctrl-C ends the process the usual way.
 */
export async function onInterrupt<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error('SIGINT'));
  process.once('SIGINT', abort);
  try {
    return await run(controller.signal);
  } finally {
    process.off('SIGINT', abort);
  }
}
