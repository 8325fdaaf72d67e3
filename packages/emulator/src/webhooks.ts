import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { WebhookEventType, WebhookPayload } from '@mediagen/core';
import type { Clock } from './clock.js';
import { monotonic } from './clock.js';
import { H, signWebhook, WEBHOOK_USER_AGENT } from './constants.js';

/** One row per attempt, as the settings screen's delivery log shows them. */
export interface DeliveryRow {
  account_id: string;
  generation_id: string;
  event: WebhookEventType;
  url: string;
  attempt: number;
  delivery_id: string;
  /** HTTP status of the receiver's answer; null on a transport error. */
  status: number | null;
  /** Transport error (timeout, connection refused or reset, DNS); null when an answer came. */
  error: string | null;
  response_time_ms: number;
  started_at: string;
  /** delivered (2xx/3xx), rejected (4xx, terminal), retrying, failed (3rd attempt failed), abandoned (90 s budget). */
  outcome: 'pending' | 'delivered' | 'rejected' | 'retrying' | 'failed' | 'abandoned';
  error_message?: string;
}

export interface Endpoint {
  url: string;
  secret: string;
}

export const WINDOW_MS = 5_000;
const WAITS_MS = [0, 1_000, 5_000];
const BUDGET_MS = 90_000;
const LOG_CAP = 10_000;

interface AttemptResult {
  status: number | null;
  error: string | null;
}

/** One delivery attempt: POSTs the body and settles with the receiver's status or a transport error. */
export type WebhookTransport = (
  url: string,
  body: Buffer,
  headers: Record<string, string>,
) => { done: Promise<AttemptResult>; abort(): void };

/** A fetch-shaped receiver in the same process: a route handler, `app.fetch`, or `fetch` itself. */
export type WebhookFetch = (request: Request) => Response | Promise<Response>;

/** Attempts over the network, with `node:http(s)` (the emulator's default). */
export const networkTransport: WebhookTransport = (url, body, headers) => {
  let req: http.ClientRequest | null = null;
  let timer: NodeJS.Timeout | null = null;
  const done = new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(r);
    };
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      finish({ status: null, error: 'invalid url' });
      return;
    }
    const mod = u.protocol === 'https:' ? https : http;
    // A fresh connection per attempt: a pooled socket could hide a receiver that hangs up.
    req = mod.request(u, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, agent: false });
    // The 5-second window runs on real time whatever the timeScale: it is the receiver's budget.
    timer = setTimeout(() => {
      finish({ status: null, error: 'timeout' });
      req?.destroy();
    }, WINDOW_MS);
    req.on('response', (res) => {
      finish({ status: res.statusCode ?? 0, error: null });
      res.resume();
      res.on('error', () => undefined);
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      finish({ status: null, error: e.code === 'ECONNRESET' ? 'connection reset' : (e.code ?? e.message) });
    });
    req.end(body);
  });
  return { done, abort: () => (req as http.ClientRequest | null)?.destroy() };
};

/**
 * Attempts handed to a fetch-shaped receiver instead of the network (in-process tests). The
 * same rules apply: the real-time 5 s window, redirects not followed, a thrown error counts
 * as a transport failure and is retried.
 */
export function fetchTransport(receive: WebhookFetch): WebhookTransport {
  return (url, body, headers) => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | null = null;
    const done = new Promise<AttemptResult>((resolve) => {
      timer = setTimeout(() => {
        resolve({ status: null, error: 'timeout' });
        controller.abort();
      }, WINDOW_MS);
      let request: Request;
      try {
        request = new Request(url, { method: 'POST', headers, body: new Uint8Array(body), redirect: 'manual', signal: controller.signal });
      } catch {
        resolve({ status: null, error: 'invalid url' });
        return;
      }
      Promise.resolve()
        .then(() => receive(request))
        .then(
          (res) => {
            resolve({ status: res.status, error: null });
            // The answer's body is not read; release it.
            res.body?.cancel().catch(() => undefined);
          },
          (e: unknown) => resolve({ status: null, error: transportError(e) }),
        )
        .finally(() => {
          if (timer) clearTimeout(timer);
        });
    });
    return { done, abort: () => controller.abort() };
  };
}

/** The delivery log's `error` for a receiver that threw: the cause's code when it has one. */
function transportError(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code === 'ECONNRESET' ? 'connection reset' : cause.code;
  return (e as Error)?.name === 'AbortError' ? 'timeout' : 'receiver threw';
}

/**
 * Delivers generation events with the contract's receiver rules: attempts at 0, +1 s, +5 s
 * (scaled by timeScale), a real-time 5 s window each, 2xx/3xx success, 4xx terminal,
 * timeouts/5xx/transport errors retried, the whole chain capped at 90 s of contract time, so
 * the number and order of attempts are the contract's under any timeScale.
 */
export class Webhooks {
  readonly log: DeliveryRow[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly aborts = new Set<() => void>();
  private epoch = 0;

  constructor(
    private readonly clock: Clock,
    private readonly timeScale: number,
    private readonly post: WebhookTransport = networkTransport,
  ) {}

  /** Starts one delivery chain per endpoint; resolves when every chain has ended (or was dropped). */
  dispatch(accountId: string, endpoints: Endpoint[], event: WebhookEventType, payload: WebhookPayload): Promise<void> {
    // Same bytes for every attempt and endpoint: receivers de-duplicate on generation_id.
    const body = Buffer.from(JSON.stringify(payload));
    const chains = endpoints.map((ep) =>
      this.chain(accountId, ep, event, payload.generation_id, body, this.epoch).catch((e: unknown) => {
        process.emitWarning(`mediagen-emulator: webhook chain: ${(e as Error)?.stack ?? String(e)}`);
      }),
    );
    return Promise.all(chains).then(() => undefined);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  private async chain(accountId: string, ep: Endpoint, event: WebhookEventType, generationId: string, body: Buffer, epoch: number) {
    // The 90 s budget is checked on contract time: the waits at their unscaled values plus the
    // real time each attempt took (its window runs on real time). Scaling the budget alone would
    // let real-time 5 s windows exhaust it early, so a slow timeScale would lose attempts.
    let contractElapsed = 0;
    // Signed once per endpoint: every attempt carries the same bytes.
    const signature = await signWebhook(body, ep.secret);
    let last: DeliveryRow | null = null;
    for (let attempt = 1; attempt <= WAITS_MS.length; attempt++) {
      const contractWait = WAITS_MS[attempt - 1] ?? 0;
      const wait = contractWait * this.timeScale;
      if (attempt > 1) {
        if (contractElapsed + contractWait > BUDGET_MS) {
          if (last) {
            last.outcome = 'abandoned';
            last.error_message = 'retry budget exhausted';
          }
          return;
        }
        await this.sleep(wait);
        if (epoch !== this.epoch) return;
        contractElapsed += contractWait;
      }
      const deliveryId = randomUUID();
      const row: DeliveryRow = {
        account_id: accountId,
        generation_id: generationId,
        event,
        url: ep.url,
        attempt,
        delivery_id: deliveryId,
        status: null,
        error: null,
        response_time_ms: 0,
        started_at: new Date(this.clock.now()).toISOString(),
        outcome: 'pending',
      };
      this.push(row);
      last = row;
      const t0 = monotonic();
      const p = this.post(ep.url, body, {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        [H.signature]: signature,
        [H.event]: event,
        [H.deliveryId]: deliveryId,
      });
      this.aborts.add(p.abort);
      const r = await p.done;
      this.aborts.delete(p.abort);
      if (epoch !== this.epoch) return;
      row.status = r.status;
      row.error = r.error;
      row.response_time_ms = Math.round(monotonic() - t0);
      contractElapsed += monotonic() - t0;
      if (r.status !== null && r.status >= 200 && r.status < 400) {
        row.outcome = 'delivered';
        return;
      }
      if (r.status !== null && r.status >= 400 && r.status < 500) {
        row.outcome = 'rejected';
        return;
      }
      row.outcome = attempt === WAITS_MS.length ? 'failed' : 'retrying';
    }
  }

  private push(row: DeliveryRow): void {
    this.log.push(row);
    if (this.log.length > LOG_CAP) this.log.splice(0, this.log.length - LOG_CAP);
  }

  /** Drops every pending retry and in-flight attempt (reset and close). */
  clear(): void {
    this.epoch++;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const a of this.aborts) a();
    this.aborts.clear();
    this.log.length = 0;
  }
}
