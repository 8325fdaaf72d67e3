import { AbortError, APIError, ConnectionError, type MediaGenError, TimeoutError } from '../errors';
import { redact, sanitizeCause } from '../util/redact';
import { sleep } from '../util/sleep';
import { Deadlines } from './deadline';
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
  retryConcurrencyLimit: boolean;
  /** Called before each resend; lets tests and apps observe retries. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
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

export interface RequestOptions {
  /** Sent as `Idempotency-Key`; the same on every attempt of this call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Per attempt. */
  timeoutMs?: number;
  /** Resends after the first attempt. */
  maxRetries?: number;
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
      if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
    }
    const url = this.#config.baseUrl + req.path;
    const log = this.#config.log;

    for (let attempt = 1; ; attempt++) {
      let error: MediaGenError;
      let delayMs: number;
      log.debug?.(`${req.method} ${req.path} attempt ${attempt}`);
      try {
        return await this.#attempt<T>(url, req, headers, payload);
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
      this.#config.onRetry?.({ attempt, delayMs, error, method: req.method, path: req.path });
      await req.beforeRetry?.(error, delayMs);
      await sleep(delayMs, req.signal);
    }
  }

  async #attempt<T>(url: string, req: Request, headers: Record<string, string>, payload: string | undefined): Promise<Response<T>> {
    const callerSignal = req.signal;
    if (callerSignal?.aborted) throw new AbortError(undefined, callerSignal.reason);
    const deadline = this.#deadlines.start(req.timeoutMs, callerSignal);
    const log = this.#config.log;
    const started = log.debug ? Date.now() : 0;

    try {
      const response = await this.#config.fetch(url, {
        method: req.method,
        headers,
        body: payload,
        signal: deadline.signal,
      });
      // The body is read inside the same timeout and abort scope: a connection that drops
      // mid-body is a connection failure, and is retried like one.
      if (response.ok) {
        const text = await readText(response, SUCCESS_BODY_MAX);
        const data: unknown = text === undefined ? undefined : text ? JSON.parse(text) : {};
        const meta = readMeta(response.headers, data);
        log.debug?.(`${req.method} ${req.path} ${response.status} ${meta.requestId} ${Date.now() - started} ms`);
        const problem = text === undefined ? 'an oversized body' : req.expect?.(data);
        if (problem !== undefined) {
          // Not retried: the same request would get the same answer. (A `create` failing so
          // carries its idempotency key, so resending it is safe.)
          const message = `${req.method} ${req.path} answered ${response.status} with ${problem} (is baseUrl right?)`;
          throw new APIError(message, { status: response.status, code: 'INVALID_RESPONSE', requestId: meta.requestId });
        }
        return { data: data as T, status: response.status, meta };
      }
      // Bounded: only the head of an error body matters, and the rest is never buffered.
      const text = redact((await readText(response, ERROR_BODY_MAX, true)) ?? '', this.#secrets);
      const error = errorFromResponse(response.status, response.headers, text);
      log.debug?.(`${req.method} ${req.path} ${response.status} ${error.requestId} ${Date.now() - started} ms: ${error.code}`);
      throw error;
    } catch (caught) {
      // The service's own answer (an error status, an unusable 2xx), already typed.
      if (caught instanceof APIError) throw caught;
      if (callerSignal?.aborted) throw new AbortError(undefined, callerSignal.reason);
      const failure = this.#failure(req, caught, deadline.expired, req.timeoutMs ?? this.#config.timeoutMs);
      log.debug?.(`${req.method} ${req.path} ${failure.code} ${Date.now() - started} ms`);
      throw failure;
    } finally {
      deadline.end();
    }
  }

  /** The error for an attempt that got no usable answer; nothing secret survives into it. */
  #failure(req: Request, caught: unknown, timedOut: boolean, timeoutMs: number): MediaGenError {
    const cause = sanitizeCause(caught, this.#secrets);
    const what = `${req.method} ${req.path}`;
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
