import type { Studio } from './mediagen';

/**
 * A graceful shutdown, for a deploy that replaces instances behind a balancer: with
 * NEXT_MANUAL_SIG_HANDLE=true (else `next start` exits at once on SIGTERM) the studio leaves
 * the balancer (GET /api/health answers 503), takes no new event stream, lets the open ones end
 * with their terminal event and the requests in flight finish, stops the reconciler, then exits.
 * Node only: `instrumentation.ts` imports it behind its runtime check.
 */
export function drainOnSignals(app: Studio): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const { streamsEnded, requestsLeft } = await app.handler.drain({ timeoutMs: drainTimeoutMs() });
    if (streamsEnded || requestsLeft) console.warn(`[mediagen] drained: ${streamsEnded} streams ended, ${requestsLeft} requests cut`);
    // The reconciler's pass in flight ends first; bounded, so the process always exits.
    await Promise.race([app.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** `MEDIAGEN_DRAIN_TIMEOUT_MS`: how long a shutdown waits for open streams (default 25 s, under the usual 30 s before SIGKILL). */
function drainTimeoutMs(): number {
  const ms = Number(process.env.MEDIAGEN_DRAIN_TIMEOUT_MS);
  return Number.isFinite(ms) && ms >= 0 ? ms : 25_000;
}
