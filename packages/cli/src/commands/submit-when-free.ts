import { setTimeout as delay } from 'node:timers/promises';
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
/** The least wait between tries, whatever the Retry-After: each try is a hit on the account's rate. */
const MIN_WAIT_MS = 1_000;

/**
 * `create`, resent with the same key each time the account turns out to be full (429
 * `CONCURRENCY_LIMIT` or `RATE_LIMIT`: another process or app holds the slots), after the
 * answer's `Retry-After`, while the wait line says where it stands. A 429 is a refusal, so
 * nothing was created; between tries nothing is in flight. Ctrl-C before anything went out, or
 * after only refusals, throws `StoppedUnsent`; once an attempt is out the submit runs to the
 * service's answer (core), and a person's Ctrl-C does not wait for that: it rejects with the
 * signal's reason.
 *
 * Not the client's `Gate`: one submit in a process of its own has no in-process line to keep,
 * the account's other submits are seen only through the service's 429s, and the gate would
 * take the account's limits from the models list as they come (a `per_minute` that is not a
 * number stalls it), where a 429's fields are read by core's typed error.
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
    const creating = client.generations.create(params, { idempotencyKey, signal });
    creating.catch(() => {});
    let refusal: RateLimitError;
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
      if (!(error instanceof RateLimitError) || signal.aborted) throw error;
      refusal = error;
    }
    const notBefore = Date.now() + Math.max(MIN_WAIT_MS, refusal.retryAfterMs);
    // A wait past the bound is the person's to decide on: the 429 ends it, with the resubmit command.
    if (notBefore > giveUpAt) throw refusal;
    waitLine.show({
      position: 1,
      limit: refusal.code === 'CONCURRENCY_LIMIT' ? 'max_concurrent' : 'per_minute',
      notBefore,
      inFlight: refusal.inFlight,
      maxConcurrent: refusal.maxConcurrent,
    });
    try {
      await delay(notBefore - Date.now(), undefined, { signal });
    } catch {
      // Nothing in flight, and every try so far refused (unless an answer was lost on the way).
      if (!sends.mayExist) throw new StoppedUnsent();
      throw signal.reason;
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
