import { isMediaGenError } from '../errors';
import { HEADERS } from '../types';
import { BODY_TOO_LARGE, isJsonContentType, readBody } from '../util/body';
import { MemoryDedupeStore, type WebhookDedupeStore } from './dedupe';
import { verifyWebhook, type WebhookEvent } from './verify';

export interface WebhookContext {
  request: Request;
  /**
   * Says the event is safely handed over (stored, queued): the delivery is answered 200 now
   * and marked seen, while the handler goes on. Use it for work that may outlast the deadline.
   */
  acknowledge(): void;
}

export interface HandleWebhookOptions {
  secrets: string | readonly string[];
  /** The app's handler. Throwing answers 5xx, so the service retries the delivery. */
  onEvent(event: WebhookEvent, context: WebhookContext): unknown;
  /** De-duplication store; default one in-memory LRU per process; `false` turns it off. */
  dedupe?: WebhookDedupeStore | false;
  /** How long a handled event is remembered. Default 24 h. */
  dedupeTtlMs?: number;
  /** When to answer if the handler is still running (the service waits 5 s). Default 4 000 ms. */
  deadlineMs?: number;
  /** Largest body read. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Observes failures (bad signatures, handler errors, late errors after the answer). */
  onError?(error: unknown, event?: WebhookEvent): void;
}

/** A claim outlives any sane handler, and lapses if the process holding it dies. */
const LEASE_MS = 5 * 60_000;
const POLL_MS = 100;
let sharedStore: MemoryDedupeStore | undefined;
/** Handlers running in this process, so a concurrent duplicate can wait on the original. */
const running = new Map<string, Promise<unknown>>();

/**
 * The framework-neutral receiver the adapters wrap: reads the raw body, verifies it,
 * de-duplicates on `generation_id` + event type and calls `onEvent`. Status codes follow the
 * service's retry rules: 4xx (terminal) for what a retry cannot fix, 5xx (retried) when the
 * handler failed or did not finish by the deadline, 200 on success or for a duplicate.
 */
export async function handleWebhook(request: Request, options: HandleWebhookOptions): Promise<Response> {
  const deadline = Date.now() + (options.deadlineMs ?? 4_000);
  if (request.method !== 'POST') return reply(405, 'METHOD_NOT_ALLOWED');
  // The service always sends JSON; anything else is not a delivery, and a retry won't change that.
  if (!isJsonContentType(request.headers.get('content-type'))) {
    return reply(415, 'WEBHOOK_CONTENT_TYPE');
  }
  let body: Uint8Array;
  try {
    body = await readBody(request, options.maxBodyBytes ?? 1_048_576);
  } catch (error) {
    return error === BODY_TOO_LARGE ? reply(413, 'WEBHOOK_BODY_TOO_LARGE') : reply(400, 'WEBHOOK_BODY_UNREADABLE');
  }
  let event: WebhookEvent;
  try {
    const headers = request.headers;
    event = await verifyWebhook({
      body,
      signature: headers.get(HEADERS.signature),
      secrets: options.secrets,
      event: headers.get(HEADERS.event),
      deliveryId: headers.get(HEADERS.deliveryId),
    });
  } catch (error) {
    report(options, error);
    const code = isMediaGenError(error) ? error.code : 'WEBHOOK_ERROR';
    // A missing secret or crypto is the receiver's fault: 5xx keeps the delivery alive.
    const status =
      code === 'WEBHOOK_SECRET_MISSING' || code === 'WEBHOOK_CRYPTO_UNAVAILABLE' ? 500 : code === 'WEBHOOK_PAYLOAD_INVALID' ? 400 : 401;
    return reply(status, code);
  }

  const store = options.dedupe === false ? undefined : (options.dedupe ?? (sharedStore ??= new MemoryDedupeStore()));
  const id = event.data.generation_id;
  if (!store || typeof id !== 'string' || id === '') return dispatch(request, options, event, deadline);
  const key = `${id}:${event.type}`;
  try {
    for (;;) {
      const claim = await store.claim(key, LEASE_MS);
      if (claim === 'claimed') return await dispatch(request, options, event, deadline, store, key);
      if (claim === 'seen') return reply(200, 'DUPLICATE');
      // Another delivery of the same event is running: wait for it, then ask again.
      const left = deadline - Date.now();
      if (left <= 0) return reply(503, 'WEBHOOK_IN_PROGRESS');
      const other = running.get(key);
      await within(other ?? new Promise(() => {}), other ? left : Math.min(left, POLL_MS));
    }
  } catch (error) {
    report(options, error, event);
    return reply(500, 'WEBHOOK_DEDUPE_FAILED');
  }
}

async function dispatch(
  request: Request,
  options: HandleWebhookOptions,
  event: WebhookEvent,
  deadline: number,
  store?: WebhookDedupeStore,
  key?: string,
): Promise<Response> {
  const ttl = options.dedupeTtlMs ?? 24 * 3_600_000;
  let handedOver = false;
  let onAck!: () => void;
  const acknowledged = new Promise<void>((resolve) => (onAck = resolve));
  const markSeen = async () => {
    if (store && key) await store.complete(key, ttl);
  };
  const context: WebhookContext = {
    request,
    acknowledge: () => {
      handedOver = true;
      onAck();
    },
  };
  // The outcome of the handler itself, whenever it comes: success marks the event seen, a
  // failure releases the claim (unless already handed over) so the retry runs it again.
  const outcome = (async () => options.onEvent(event, context))().then(
    async () => {
      if (!handedOver) await markSeen().catch((error: unknown) => report(options, error, event));
      return true;
    },
    async (error: unknown) => {
      report(options, error, event);
      if (!handedOver && store && key) await Promise.resolve(store.release(key)).catch((e: unknown) => report(options, e, event));
      return false;
    },
  );
  if (key) {
    running.set(key, outcome);
    void outcome.finally(() => running.get(key) === outcome && running.delete(key));
  }
  const answer = await within(Promise.race([outcome, acknowledged.then(markSeen).then(() => true)]), deadline - Date.now());
  // 5xx on failure or timeout: the service retries, and the retry finds the outcome.
  return answer === true ? reply(200) : answer === false ? reply(500, 'WEBHOOK_HANDLER_FAILED') : reply(503, 'WEBHOOK_HANDLER_TIMEOUT');
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

function reply(status: number, code?: string): Response {
  const body = status > 299 ? { error: code } : code ? { received: true, duplicate: true } : { received: true };
  return Response.json(body, { status });
}

function report(options: HandleWebhookOptions, error: unknown, event?: WebhookEvent): void {
  try {
    options.onError?.(error, event);
  } catch {
    // An observer's own failure must not change the answer.
  }
}
