import { AbortError, type MediaGenClient, RateLimitError, type TypedGenerateParams } from '@mediagen/core';
import type { SlotWaitLine } from '../queue-line';

/** What went out of one submit, as the client's hooks saw it. */
export interface SubmitSends {
  /** An attempt went out since the last try began: an abort now no longer means "nothing sent". */
  sent: boolean;
  /** An attempt got no answer, a 5xx or a 409: the service may hold a generation under the key. */
  mayExist: boolean;
}

/** Ctrl-C reached a submit before any attempt of it was sent (or after each was refused): nothing to bill. */
export class StoppedUnsent extends Error {}

/** Longest the CLI resubmits after 429s from a busy account before it gives up with the last one (exit 6). */
const SLOT_WAIT_MAX_MS = 10 * 60_000;

/**
 * `create` through the gate, resent with the same key each time the account turns out to be
 * full (429 `CONCURRENCY_LIMIT` or `RATE_LIMIT`: another process or app holds the slots). A 429
 * is a refusal, so nothing was created; the gate pauses for its Retry-After and the next try
 * waits in it, where an abort is before the send point. Ctrl-C before anything went out (or
 * after only refusals) throws `StoppedUnsent`; once an attempt is out the submit runs to the
 * service's answer, and a person's Ctrl-C does not wait for that: it rejects with the signal's reason.
 */
export async function submitWhenSlotFree(
  client: MediaGenClient,
  params: TypedGenerateParams,
  { idempotencyKey, signal, sends, waitLine }: { idempotencyKey: string; signal: AbortSignal; sends: SubmitSends; waitLine: SlotWaitLine },
) {
  const giveUpAt = Date.now() + SLOT_WAIT_MAX_MS;
  // One listener for every try (one per try would pile up on the signal).
  const aborted = abortedBy(signal);
  aborted.catch(() => {});
  for (;;) {
    sends.sent = false;
    const creating = client.generations.create(params, { idempotencyKey, signal, onQueue: (wait) => waitLine.show(wait) });
    creating.catch(() => {});
    try {
      return await Promise.race([creating, aborted]);
    } catch (error) {
      if (signal.aborted && !sends.sent) {
        // Before the send point `create` honours the signal at once, with an `AbortError`: nothing went out.
        const outcome = await creating.then(
          (submitted) => ({ submitted }),
          (error: unknown) => ({ error }),
        );
        if ('submitted' in outcome) return outcome.submitted;
        if (outcome.error instanceof AbortError && !sends.mayExist) throw new StoppedUnsent();
        throw outcome.error;
      }
      if (!(error instanceof RateLimitError) || signal.aborted || Date.now() >= giveUpAt) throw error;
      waitLine.show({
        position: 1,
        limit: error.code === 'CONCURRENCY_LIMIT' ? 'max_concurrent' : 'per_minute',
        notBefore: Date.now() + error.retryAfterMs,
        inFlight: error.inFlight,
        maxConcurrent: error.maxConcurrent,
      });
    }
  }
}

/** Rejects once `signal` aborts (with its reason). */
function abortedBy(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
