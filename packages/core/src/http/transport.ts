import { AbortError, ConnectionError, MediaGenError, RateLimitError, TimeoutError, type APIError } from '../errors';
import { sleep } from '../util/sleep';
import { errorFromResponse, serverRequestedDelay } from './response-error';
import { readMeta, type ResponseMeta } from './response-meta';

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

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#authorization = `Bearer ${config.apiKey}`;
    this.#readHeaders = { authorization: this.#authorization, accept: 'application/json' };
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

    for (let attempt = 1; ; attempt++) {
      let error: MediaGenError;
      let delayMs: number;
      try {
        return await this.#attempt<T>(url, req, headers, payload);
      } catch (caught) {
        const failure = caught as AttemptFailure | MediaGenError;
        if (!(failure instanceof AttemptFailure)) throw failure;
        error = failure.error;
        const retryable = attempt <= maxRetries && this.#shouldRetry(error);
        if (!retryable) throw error;
        delayMs = failure.delayMs ?? backoff(attempt);
      }
      this.#config.onRetry?.({ attempt, delayMs, error, method: req.method, path: req.path });
      await sleep(delayMs, req.signal);
    }
  }

  async #attempt<T>(url: string, req: Request, headers: Record<string, string>, payload: string | undefined): Promise<Response<T>> {
    const callerSignal = req.signal;
    if (callerSignal?.aborted) throw new AbortError(undefined, callerSignal.reason);
    const controller = new AbortController();
    const timeoutMs = req.timeoutMs ?? this.#config.timeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onAbort, { once: true });

    try {
      const response = await this.#config.fetch(url, {
        method: req.method,
        headers,
        body: payload,
        signal: controller.signal,
      });
      // The body is read inside the same timeout and abort scope: a connection that drops
      // mid-body is a connection failure, and is retried like one.
      const text = await response.text();
      if (response.ok) {
        const data = (text ? JSON.parse(text) : {}) as T;
        return { data, status: response.status, meta: readMeta(response.headers, data) };
      }
      const error = errorFromResponse(response.status, response.headers, text);
      throw new AttemptFailure(error, serverRequestedDelay(error, response.headers));
    } catch (caught) {
      if (caught instanceof AttemptFailure) throw caught;
      if (callerSignal?.aborted) throw new AbortError(undefined, callerSignal.reason);
      if (timedOut) {
        throw new AttemptFailure(new TimeoutError(`${req.method} ${req.path} got no complete response within ${timeoutMs} ms.`, caught));
      }
      if (caught instanceof SyntaxError) {
        throw new AttemptFailure(new ConnectionError(`${req.method} ${req.path} answered 2xx with a body that is not JSON.`, caught));
      }
      throw new AttemptFailure(
        new ConnectionError(`${req.method} ${req.path} failed before a response arrived: ${describe(caught)}`, caught),
      );
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
    }
  }

  #shouldRetry(error: MediaGenError): boolean {
    if (!error.retryable) return false;
    if (error instanceof RateLimitError && error.code === 'CONCURRENCY_LIMIT') {
      return this.#config.retryConcurrencyLimit;
    }
    return true;
  }
}

/** One failed attempt, with the wait the service asked for (if any) before the next. */
class AttemptFailure {
  constructor(
    readonly error: APIError | MediaGenError,
    readonly delayMs?: number,
  ) {}
}

/** 1 s, 2 s, 4 s … capped at 30 s, minus up to a quarter at random so clients don't resend in step. */
export function backoff(attempt: number): number {
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_START_MS * 2 ** (attempt - 1));
  return Math.round(base * (1 - Math.random() * 0.25));
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
