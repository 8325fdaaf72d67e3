import { createHmac } from '../crypto/hmac';
import { isMediaGenError } from '../errors';
import { eventsOf } from '../events/events-of';
import type { GenerationEvents } from '../events/generation-events';
import type { MediaGenWebhookOptions } from '../server/options';
import { HEADERS } from '../types';
import { BODY_TIMEOUT, BODY_TOO_LARGE, isJsonContentType, readBody } from '../util/body';
import { readEnv } from '../util/env';
import { ERROR_CODES, errorCodeInfo } from '../wire/error-codes';
import { MemoryDedupeStore } from './dedupe';
import { refusalResponse, webhookRefusal } from './refusals';
import { type VerifiedWebhookEvent, verifyWebhookWith, type WebhookEvent } from './verify';

export interface ReceiverContext {
  request: Request;
  /**
   * Says the event is safely handed over (stored, queued): the delivery is answered 200 now
   * and marked seen, while the handler goes on. Use it for work that may outlast the deadline.
   */
  acknowledge(): void;
}

/** The receiver's options inside core: the public webhook options with the mount's own parts filled in. */
export interface ReceiverOptions<Context extends ReceiverContext = ReceiverContext>
  extends Omit<MediaGenWebhookOptions, 'onEvent' | 'maxBodyBytes' | 'waitUntil'> {
  onEvent(event: WebhookEvent, context: Context): unknown;
  /** Largest body read, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** A client whose events get the verified events (one with none gets in-process ones installed). */
  client?: { events?: GenerationEvents | undefined };
  /** Keeps work alive after the answer, with the delivery's request. */
  waitUntil?(promise: Promise<unknown>, request: Request): void;
  /** Observes failures (bad signatures, handler errors, late errors after the answer). */
  onError?(error: unknown, event?: WebhookEvent): void;
  /** Adds the mount's own fields (the adapter's request) to the context `onEvent` gets. */
  context?(base: ReceiverContext): Context;
}

/** What `onVerify` sees of one signature check. */
export interface WebhookVerifyInfo {
  /** The verified event; undefined when the delivery was refused. */
  event: VerifiedWebhookEvent | undefined;
  /** Why it was refused (a `WebhookVerificationError`: `WEBHOOK_SIGNATURE_INVALID`, …); undefined when verified. */
  error: unknown;
  /** When the check began (epoch ms) and how long it took. */
  startedAt: number;
  elapsedMs: number;
}

/** The receiver inside: a Web `Request` in, the answer the service's retry rules expect out. */
export type Receiver = (request: Request) => Promise<Response>;

const POLL_MS = 100;

/**
 * Core's one webhook receiver, internal: `createMediaGenHandler`'s webhook route and the
 * receiver alone (`createWebhookHandler`, in server/webhook.ts) both run it with the same options. It reads the raw body (bounded in size and
 * time), verifies it, de-duplicates on `generation_id` + event type (both from the signed
 * body) and calls `onEvent`. Status codes follow the service's retry rules: 4xx (terminal) for
 * what a retry cannot fix, 5xx (retried) when the handler failed or did not finish by the
 * deadline, 200 on success or for a duplicate. Each handler owns its de-duplication state.
 */
export function createReceiver<Context extends ReceiverContext = ReceiverContext>(options: ReceiverOptions<Context>): Receiver {
  const store = options.dedupe === false ? undefined : (options.dedupe ?? new MemoryDedupeStore());
  /** Handlers running in this receiver, so a concurrent duplicate can wait on the original. */
  const running = new Map<string, Promise<boolean>>();
  const deadlineMs = options.deadlineMs ?? 4_000;
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  const ttlMs = options.dedupeTtlMs ?? 24 * 3_600_000;
  const leaseMs = options.claimLeaseMs ?? 5 * 60_000;
  const hmac = createHmac();
  const events = options.events ?? (options.client && eventsOf(options.client));
  const report = (error: unknown, event?: WebhookEvent) => {
    try {
      options.onError?.(error, event);
    } catch {
      // An observer's own failure must not change the answer.
    }
  };
  const keepAlive = (promise: Promise<unknown>, request: Request) => {
    try {
      options.waitUntil?.(promise, request);
    } catch (error) {
      report(error);
    }
  };

  async function dispatch(request: Request, event: WebhookEvent, deadline: number, key?: string): Promise<Response> {
    let handedOver = false;
    let onAck!: () => void;
    const acknowledged = new Promise<void>((resolve) => (onAck = resolve));
    const markSeen = async () => {
      if (store && key) await store.complete(key, ttlMs);
    };
    const base: ReceiverContext = {
      request,
      acknowledge: () => {
        handedOver = true;
        onAck();
      },
    };
    const context = options.context ? options.context(base) : (base as Context);
    // The outcome of the handler itself, whenever it comes: success marks the event seen, a
    // failure releases the claim (unless already handed over) so the retry runs it again.
    const outcome = (async () => options.onEvent(event, context))().then(
      async () => {
        if (!handedOver) await markSeen().catch((error: unknown) => report(error, event));
        return true;
      },
      async (error: unknown) => {
        report(error, event);
        if (!handedOver && store && key) await Promise.resolve(store.release(key)).catch((e: unknown) => report(e, event));
        return false;
      },
    );
    keepAlive(outcome, request);
    if (key) {
      running.set(key, outcome);
      void outcome.finally(() => running.get(key) === outcome && running.delete(key));
    }
    // The 2xx for an acknowledged event goes out only once the claim is stored as seen.
    const answer = await within(Promise.race([outcome, acknowledged.then(markSeen).then(() => true)]), deadline - Date.now());
    // 5xx on failure or timeout: the service retries, and the retry finds the outcome.
    return answer === true ? accepted() : webhookRefusal(answer === false ? 'WEBHOOK_HANDLER_FAILED' : 'WEBHOOK_HANDLER_TIMEOUT');
  }

  return async function handleWebhook(request: Request): Promise<Response> {
    const deadline = Date.now() + deadlineMs;
    if (request.method !== 'POST') return webhookRefusal('METHOD_NOT_ALLOWED');
    // The service always sends JSON; anything else is not a delivery, and a retry won't change that.
    if (!isJsonContentType(request.headers.get('content-type'))) return webhookRefusal('WEBHOOK_CONTENT_TYPE');
    let body: Uint8Array;
    try {
      // The deadline covers the body too: a sender that never finishes gets an answer in time.
      body = await readBody(request, maxBodyBytes, deadline);
    } catch (error) {
      if (error === BODY_TOO_LARGE) return webhookRefusal('WEBHOOK_BODY_TOO_LARGE');
      // A body cut off or still trickling at the deadline may be a real delivery hit by the
      // network: answer 5xx so the service retries it (a 4xx would end its chain for good).
      return webhookRefusal(error === BODY_TIMEOUT ? 'WEBHOOK_BODY_TIMEOUT' : 'WEBHOOK_BODY_UNREADABLE');
    }
    let event: VerifiedWebhookEvent;
    const startedAt = Date.now();
    const verified = (info: Pick<WebhookVerifyInfo, 'event' | 'error'>) => {
      try {
        options.onVerify?.({ ...info, startedAt, elapsedMs: Date.now() - startedAt });
      } catch {
        // An observer's own failure must not change the answer.
      }
    };
    try {
      const headers = request.headers;
      event = await verifyWebhookWith(hmac, {
        body,
        signature: headers.get(HEADERS.signature),
        secrets: options.secrets ?? secretsFromEnv(),
        event: headers.get(HEADERS.event),
        deliveryId: headers.get(HEADERS.deliveryId),
      });
      verified({ event, error: undefined });
    } catch (error) {
      verified({ event: undefined, error });
      const code = isMediaGenError(error) ? error.code : 'WEBHOOK_ERROR';
      const { status, next } = errorCodeInfo(code) ?? ERROR_CODES.WEBHOOK_SIGNATURE_INVALID;
      // The remedy in the log line too (verifyWebhook leaves it out to stay small), not only in the answer.
      if (isMediaGenError(error) && !error.next) (error as { next: string }).next = next;
      report(error);
      return refusalResponse(status, code, isMediaGenError(error) ? error.message : 'The delivery was refused.', next);
    }

    // A genuine event of a type added after this SDK: acknowledged, not handled, not retried.
    if (event.type === 'unknown') return Response.json({ received: true, ignored: true });

    // Waiters learn of the result at once, whether or not this delivery is a duplicate.
    if (events) {
      const published = Promise.resolve()
        .then(() => events.publish(event))
        .catch((error: unknown) => report(error, event));
      keepAlive(published, request);
    }

    if (!store) return dispatch(request, event, deadline);
    const key = `${event.data.generation_id}:${event.type}`;
    try {
      for (;;) {
        const claim = await store.claim(key, leaseMs);
        if (claim === 'claimed') return await dispatch(request, event, deadline, key);
        if (claim === 'seen') return accepted(true);
        // Another delivery of the same event is running: wait for it, then ask again.
        const left = deadline - Date.now();
        if (left <= 0) return webhookRefusal('WEBHOOK_IN_PROGRESS');
        const other = running.get(key);
        await within(other ?? new Promise(() => {}), other ? left : Math.min(left, POLL_MS));
      }
    } catch (error) {
      report(error, event);
      return webhookRefusal('WEBHOOK_DEDUPE_FAILED');
    }
  };
}

/** `MEDIAGEN_WEBHOOK_SECRET`, one secret or several comma-separated (a rotation, several endpoints). */
export function secretsFromEnv(): string[] {
  return (readEnv('MEDIAGEN_WEBHOOK_SECRET') ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
}

/** `promise`'s value, or `undefined` if `ms` pass first. Never leaves a timer behind. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: Parameters<typeof clearTimeout>[0];
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  } finally {
    clearTimeout(timer);
  }
}

/** A 2xx says whether the event ran (or was a duplicate). */
function accepted(duplicate = false): Response {
  return Response.json(duplicate ? { received: true, duplicate: true } : { received: true });
}
