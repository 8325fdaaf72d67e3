import { AbortError, APIError, ConnectionError, MediaGenError, TimeoutError } from '../errors';
import type { GateWait } from '../gate/store';
import { redact, sanitizeCause } from '../util/redact';
import { sleep } from '../util/sleep';
import { Deadlines } from './deadline';
import { IDEMPOTENCY_KEY_HEADER } from './header-names';
import type { RequestLog } from './log';
import { ERROR_BODY_MAX, readText, SUCCESS_BODY_MAX } from './read-text';
import { errorFromResponse } from './response-error';
import { type ResponseMeta, readMeta } from './response-meta';
import { RETRY_AFTER_MAX_MS } from './retry-after';

export interface TransportConfig {
  apiKey: string;
  baseUrl: string;
  maxRetries: number;
  timeoutMs: number;
  fetch: typeof fetch;
  /** Resend `429 CONCURRENCY_LIMIT` after a wait. Off by default: the spec says the excess returns at once. */
  retryConcurrencyLimit?: boolean | undefined;
  /** Called before each resend; lets tests and apps observe retries (a throw is logged, never fails the call). */
  onRetry?: ((info: RetryInfo) => unknown) | undefined;
  onRequest?: ((info: RequestHookInfo) => unknown) | undefined;
  onResponse?: ((info: ResponseHookInfo) => unknown) | undefined;
  /** Sent on every request (`mediagen-core/<version> <runtime>/<version>`). */
  userAgent: string;
  log: RequestLog;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: MediaGenError;
  method: string;
  path: string;
}

/** What `onRequest` sees of one HTTP attempt (each resend is an attempt of its own). */
export interface RequestHookInfo {
  method: string;
  /** The API URL (never an output link: its query is a credential, and downloads are not hooked). */
  url: string;
  /** 1 for the first send, 2 for the first resend, … */
  attempt: number;
  /** The `Idempotency-Key`, the same on every attempt of a call (every submit has one). */
  idempotencyKey: string | undefined;
  /** A copy of the headers sent, without `Authorization`: changing it changes nothing sent. */
  headers: Record<string, string>;
}

/** What `onResponse` sees once an attempt is over, answered or not. */
export interface ResponseHookInfo extends Omit<RequestHookInfo, 'headers'> {
  /** The HTTP status; undefined when no response came (connection failure, timeout, abort). */
  status: number | undefined;
  /** The response's `X-Request-Id` (or its body's `request_id`): quote it to support. */
  requestId: string | undefined;
  /** From the send to the answer read, body included. */
  elapsedMs: number;
  /** What the attempt throws (a 4xx/5xx, an unusable body, no response); undefined on success. */
  error: MediaGenError | undefined;
}

export interface RequestOptions {
  /** Sent as `Idempotency-Key`; the same on every attempt of this call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Per attempt. */
  timeoutMs?: number;
  /** Resends after the first attempt. */
  maxRetries?: number;
  /**
   * A submit (`create`, `run`) waiting for a slot of the client's gate: told at each wait where
   * it stands, by a gate store that queues (`queueGateStore`, `RedisGateStore`). A throw fails
   * the submit before it is sent (nothing is charged).
   */
  onQueue?: (wait: GateWait) => void;
}

export interface Request extends RequestOptions {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** When a resend is decided, `delayMs` before it goes (the gate counts a submit's resends as rate hits). */
  beforeRetry?: (error: MediaGenError, delayMs: number) => Promise<void>;
  /** Checks a 2xx body's shape: a description of what is wrong, or undefined when it is usable. */
  expect?: (data: unknown) => string | undefined;
}

export interface Response<T> {
  data: T;
  status: number;
  meta: ResponseMeta;
}

const BACKOFF_START_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

/** HTTP with the spec's retry rules. One instance per client; holds the key privately. */
export class Transport {
  readonly #config: TransportConfig;
  readonly #authorization: string;
  /** The headers of every bodiless, keyless request (all reads): built once, never mutated. */
  readonly #readHeaders: Record<string, string>;
  /** What must never appear in anything this transport writes. */
  readonly #secrets: readonly string[];
  readonly #deadlines: Deadlines;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#authorization = `Bearer ${config.apiKey}`;
    this.#secrets = [config.apiKey];
    this.#deadlines = new Deadlines(config.timeoutMs);
    this.#readHeaders = { authorization: this.#authorization, accept: 'application/json', 'user-agent': config.userAgent };
  }

  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  async request<T>(req: Request): Promise<Response<T>> {
    const maxRetries = req.maxRetries ?? this.#config.maxRetries;
    let headers = this.#readHeaders;
    let payload: string | undefined;
    if (req.body !== undefined || req.idempotencyKey !== undefined) {
      headers = { ...headers };
      if (req.body !== undefined) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(req.body);
      }
      if (req.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = req.idempotencyKey;
    }
    const url = this.#config.baseUrl + req.path;
    const log = this.#config.log;

    for (let attempt = 1; ; attempt++) {
      let error: MediaGenError;
      let delayMs: number;
      try {
        return await this.#attempt<T>(url, req, headers, payload, attempt);
      } catch (caught) {
        // An abort is not retryable, so it is thrown below like any error not to resend.
        error = caught as MediaGenError;
        delayMs = (error as APIError).retryAfterMs ?? backoff(attempt);
        // A wait past the cap is the caller's to keep: resending sooner only meets the same refusal.
        // `429 CONCURRENCY_LIMIT`: the excess returns at once (spec), so it is resent only on request.
        const resend = error.retryable && (error.code !== 'CONCURRENCY_LIMIT' || this.#config.retryConcurrencyLimit);
        if (attempt > maxRetries || delayMs > RETRY_AFTER_MAX_MS || !resend) throw error;
      }
      log.info?.(`${req.method} ${req.path} ${error.code}: retry ${attempt} in ${delayMs} ms`);
      this.#notify('onRetry', { attempt, delayMs, error, method: req.method, path: req.path });
      await req.beforeRetry?.(error, delayMs);
      await sleep(delayMs, req.signal);
    }
  }

  async #attempt<T>(
    url: string,
    req: Request,
    headers: Record<string, string>,
    payload: string | undefined,
    attempt: number,
  ): Promise<Response<T>> {
    const callerSignal = req.signal;
    if (callerSignal?.aborted) throw new AbortError(undefined, callerSignal.reason);
    const deadline = this.#deadlines.start(req.timeoutMs, callerSignal);
    const log = this.#config.log;
    const what = `${req.method} ${req.path}`;
    const info = { method: req.method, url, attempt, idempotencyKey: req.idempotencyKey };
    log.debug?.(`${what} attempt ${attempt}`);
    // A copy without the key: a hook that logs what it is given never logs the secret. Called
    // synchronously right before `fetch` (@mediagen/opentelemetry hands the attempt to its
    // fetch span so): nothing may be awaited between the two.
    if (this.#config.onRequest) {
      const { authorization: _, ...visible } = headers;
      this.#notify('onRequest', { ...info, headers: visible });
    }
    const started = Date.now();
    let status: number | undefined;
    let requestId: string | undefined;
    let error: MediaGenError | undefined;

    try {
      const response = await this.#config.fetch(url, {
        method: req.method,
        headers,
        body: payload,
        signal: deadline.signal,
      });
      status = response.status;
      // The body is read inside the same timeout and abort scope: a connection that drops
      // mid-body is a connection failure, and is retried like one.
      if (response.ok) {
        const text = await readText(response, SUCCESS_BODY_MAX);
        const data: unknown = text === undefined ? undefined : text ? JSON.parse(text) : {};
        const meta = readMeta(response.headers, data);
        requestId = meta.requestId;
        const problem = text === undefined ? 'an oversized body' : req.expect?.(data);
        if (problem !== undefined) {
          // Not retried: the same request would get the same answer. (A `create` failing so
          // carries its idempotency key, so resending it is safe.)
          const message = `${what} answered ${status} with ${problem} (is baseUrl right?)`;
          throw new APIError(message, { status, code: 'INVALID_RESPONSE', requestId });
        }
        return { data: data as T, status, meta };
      }
      // Bounded: only the head of an error body matters, and the rest is never buffered.
      const text = redact((await readText(response, ERROR_BODY_MAX, true)) ?? '', this.#secrets);
      throw errorFromResponse(status, response.headers, text);
    } catch (caught) {
      // The service's own answer (an error status, an unusable 2xx) is already typed, and so is a
      // setting the client found missing (thrown by its fetch, so no request went out).
      error =
        caught instanceof MediaGenError
          ? caught
          : callerSignal?.aborted
            ? new AbortError(undefined, callerSignal.reason)
            : this.#failure(what, caught, deadline.expired, req.timeoutMs ?? this.#config.timeoutMs);
      requestId = error.requestId;
      throw error;
    } finally {
      deadline.end();
      const elapsedMs = Date.now() - started;
      // One line and one hook call per attempt, however it ended.
      log.debug?.(`${what} ${status ?? '-'} ${requestId ?? '-'} ${elapsedMs} ms${error ? `: ${error.code}` : ''}`);
      if (this.#config.onResponse) this.#notify('onResponse', { ...info, status, requestId, elapsedMs, error });
    }
  }

  /**
   * Calls an app's hook so that nothing it does reaches the request: a throw (or an async
   * hook's rejection) is logged at `warn` and otherwise ignored, so a broken hook can never
   * fail a call, or make the transport resend a submit that was billed.
   */
  #notify<K extends 'onRequest' | 'onResponse' | 'onRetry'>(name: K, info: Parameters<NonNullable<TransportConfig[K]>>[0]): void {
    const hook = this.#config[name] as ((info: unknown) => unknown) | undefined;
    if (hook) (async () => hook(info))().catch((error) => this.#config.log.warn?.(`${name} threw: ${describe(error)}`));
  }

  /** The error for an attempt that got no usable answer; nothing secret survives into it. */
  #failure(what: string, caught: unknown, timedOut: boolean, timeoutMs: number): MediaGenError {
    const cause = sanitizeCause(caught, this.#secrets);
    if (timedOut) return new TimeoutError(`${what} timed out after ${timeoutMs} ms.`, cause);
    if (caught instanceof SyntaxError) return new ConnectionError(`${what} answered a 2xx body that is not JSON.`, cause);
    return new ConnectionError(redact(`${what} failed: ${describe(caught)}`, this.#secrets), cause);
  }
}

/**
 * 1 s, 2 s, 4 s … capped at 30 s (the contract's floor), plus up to a quarter at random so
 * clients don't resend in step: jitter only lengthens a wait, and never past the cap.
 */
export function backoff(attempt: number): number {
  return Math.min(BACKOFF_CAP_MS, Math.round(BACKOFF_START_MS * 2 ** (attempt - 1) * (1 + Math.random() / 4)));
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
