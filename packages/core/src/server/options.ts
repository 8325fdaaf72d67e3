import type { MediaGenClient } from '../client';
import type { GenerationEvents } from '../events/generation-events';
import type { GenerationEta } from '../ledger/eta';
import type { GenerateParams, Generation, SubmitResponse } from '../types';
import type { BodyLimit } from '../util/limit';
import type { WebhookDedupeStore } from '../webhooks/dedupe';
import type { WebhookVerifyInfo } from '../webhooks/handler';
import type { WebhookEvent } from '../webhooks/verify';
import type { BudgetOptions } from './budget/budget-guard';
import type { CorsOptions } from './cors';
import type { GenerationSource } from './source';
import type { StreamOptions } from './stream-hub';
import type { UploadOptions } from './uploads/uploads';

/** Who is asking, as every hook sees it. */
export interface MediaGenContext<Platform = unknown> {
  /** The user, from `identify` (or the caller of a server action); undefined when the app names none. */
  owner: string | undefined;
  /** The Web request, on the HTTP routes (absent in a server action). */
  request?: Request | undefined;
  /** What the adapter passed along: Express's `req`, Hono's `c`, Fastify's `request`… */
  platform?: Platform | undefined;
}

/**
 * What `onEvent` gets: the delivery's Web `request`, `acknowledge()`, and the adapter's own
 * request as `platform` (Express's `req`, Hono's `c`, …), the field every other hook reads too.
 */
export interface MediaGenWebhookContext<Platform = unknown> {
  request: Request;
  /**
   * Says the event is safely handed over (stored, queued): the delivery is answered 200 now
   * and marked seen, while the handler goes on. Use it for work that may outlast the deadline.
   */
  acknowledge(): void;
  platform: Platform | undefined;
}

/**
 * The webhook receiver's options: the handler's `webhook` option, and (with `client` and
 * `onError`, `WebhookHandlerOptions`) the receiver alone: `createWebhookHandler`, Express's
 * `mediagenWebhook`, Next's `createWebhookHandler`. One receiver, one set of options, wherever it is mounted.
 */
export interface MediaGenWebhookOptions<Platform = unknown> {
  /**
   * The endpoint's signing secret, or several during a rotation. Default: `MEDIAGEN_WEBHOOK_SECRET`,
   * comma-separated for several (read per delivery, so a rotated env value is picked up).
   */
  secrets?: string | readonly string[];
  /** The app's handler, once per event. Throwing answers 5xx, so the service retries the delivery. Default: none (the event still resolves `wait()`). */
  onEvent?(event: WebhookEvent, context: MediaGenWebhookContext<Platform>): unknown;
  /**
   * De-duplication store. Default: a `MemoryDedupeStore` owned by this receiver, right for one
   * instance; several instances share one (`RedisDedupeStore` from `@mediagen/redis`). `false` turns it off.
   */
  dedupe?: WebhookDedupeStore | false;
  /** How long a handled event is remembered. Default 24 h. */
  dedupeTtlMs?: number;
  /**
   * How long a claim on an event in progress holds if its instance dies mid-handler. Default
   * 5 min: longer than any sane handler, so a slow one never runs twice, but past the service's
   * retry chain (about 11 s), so a crash's event comes back only through polling. Shorter (say
   * 8 s) lets the service's last attempt run it on another instance, at the risk of a second run
   * of a handler that takes longer than the lease.
   */
  claimLeaseMs?: number;
  /** When to answer if the body or the handler is still running (the service waits 5 s). Default 4 000 ms. */
  deadlineMs?: number;
  /** Largest delivery body: bytes, or `'1mb'`-style. Default `'1mb'`; larger is 413. */
  maxBodyBytes?: BodyLimit;
  /** Where verified events are published, so `wait()` resolves on them. Default: the client's `events`. */
  events?: Pick<GenerationEvents, 'publish'>;
  /**
   * Observes each signature check once it is over (tracing, metrics: `@mediagen/opentelemetry`'s
   * `webhookTelemetry()` sets it). Called in the delivery's own async context, before the event
   * is handled; never given the secrets, the signature or the body. A throw is ignored.
   */
  onVerify?(info: WebhookVerifyInfo): void;
  /**
   * Keeps work alive after the answer on runtimes that stop at the response: gets the work and
   * the adapter's request (Next's `after`, a Worker's `c.executionCtx.waitUntil`).
   */
  waitUntil?(promise: Promise<unknown>, platform: Platform | undefined): void;
}

export interface MediaGenHandlerOptions<Platform = unknown> {
  /** The server-side client; its API key never leaves the server. */
  client: MediaGenClient;
  /** Where the app mounts the routes (`/api`); requests outside it answer 404. Default `''` (the root). */
  basePath?: string;
  /**
   * The app's auth: the user a request comes from (a session cookie, a token), or undefined for
   * none. Every read, list and stream is scoped to this user, and the browser's
   * `Idempotency-Key` is scoped to them too (two users' keys never name one submit). Throw a
   * `SubmitRefusedError` (status 401) to refuse a request outright. With the ledger as `source`,
   * a user id with NUL or an unpaired surrogate is refused (`ConfigurationError`, a 500): check
   * ids taken from a cookie or a token before returning them.
   */
  identify?(request: Request, platform: Platform | undefined): string | undefined | Promise<string | undefined>;
  /**
   * Serve a request for which `identify` names no user (or there is no `identify`) as one user
   * shared by every such visitor: a demo, a single-user tool. Default false: then submits, lists,
   * reads and streams answer `401 USER_UNKNOWN`, so that a missing session cookie never shows
   * one visitor another's generations.
   */
  allowAnonymous?: boolean;
  /**
   * Whether `context.owner` may see `generation`, on every read and stream (a list is scoped by
   * `source.list`). Refused reads answer 404, as the service does for another account's id.
   * Default: allowed when the source knows the id for this owner; with no source, allowed.
   */
  authorize?(context: MediaGenContext<Platform>, generation: Generation): boolean | Promise<boolean>;
  /** Where submits are recorded and reads are scoped (the generation ledger, the app's own table). */
  source?: GenerationSource;
  /**
   * An estimate of the time a running generation has left, added as `eta` to status reads and
   * stream events. Default: the source's (`ledgerSource(ledger)` passes `ledger.eta`, from the
   * app's own past renders); with neither, no `eta` is sent.
   */
  eta?(generation: Generation): GenerationEta | undefined;
  /** Model slugs the browser may submit and see; default: every model of the account. */
  allowModels?: readonly string[];
  /** Param keys the browser may send; default `DEFAULT_ALLOWED_PARAMS`. Others get 422 INVALID_BODY. */
  allowParams?: readonly string[];
  /** Largest submit or estimate body: bytes, or `'100kb'`-style. Default `'100kb'`. */
  maxBodyBytes?: BodyLimit;
  /** How long a submit body may take to arrive. Default 10 000 ms; later is 408 REQUEST_TIMEOUT. */
  bodyTimeoutMs?: number;
  /**
   * Runs before a submit or an estimate: authorise, rewrite or add params (return them). To
   * refuse, throw a `SubmitRefusedError` (a 4xx with your message); any other throw is a 500
   * with its message hidden.
   */
  beforeSubmit?(params: GenerateParams, context: MediaGenContext<Platform>): GenerateParams | void | Promise<GenerateParams | void>;
  /**
   * Runs once per generation after a submit was accepted (after `source.record`); the 202 body
   * is sent once it settles. An idempotent replay (a double click, a retry with the same
   * `Idempotency-Key`) returns the same generation without running it again. If it throws, the
   * answer is 500 and a resend with the same key runs it again (nothing is billed twice).
   */
  onSubmitted?(submitted: SubmitResponse, params: GenerateParams, context: MediaGenContext<Platform>): unknown;
  /**
   * Sees every failure answered 5xx (the browser gets a masked message for the app's own faults)
   * and the webhook receiver's failures. Default: `console.error`, except a webhook delivery
   * refused 4xx (a forged or broken one), which gets one `console.warn` line with its code.
   */
  onError?(error: unknown, context?: MediaGenContext<Platform>): void;
  /**
   * Remembers which generations were recorded. Default: in memory, per handler; share one across
   * instances (`RedisDedupeStore`) so a replay on another instance is known too.
   */
  submittedStore?: WebhookDedupeStore;
  /** Origins whose pages may call the routes with the user's cookie. Default: none (no CORS headers at all). */
  cors?: CorsOptions;
  /**
   * Bounds of the event streams (`GET /generations/:id/events`, `GET /generations/events`):
   * open streams per handler, heartbeat interval. Their updates come from `client.events`: give
   * the client a shared one (`RedisGenerationEvents`) and a webhook on any instance reaches
   * the streams on every instance.
   */
  stream?: StreamOptions;
  /**
   * Serves `POST /uploads` (a person's file in, `{ input }` out, for a submit's input fields) and
   * the links the service fetches those files from. Absent: both answer 404.
   */
  uploads?: UploadOptions;
  /**
   * Per-user budgets: credits per period, submits per minute, generations in flight. Each submit
   * is priced exactly first (the service's `estimate: true`) and reserved in `store` before it
   * is sent; over a limit it is refused (`402 USER_BUDGET_EXCEEDED`, `429 USER_RATE_LIMIT`,
   * `429 USER_CONCURRENCY_LIMIT`) and nothing is sent. The reservation is settled to what the
   * service charged when the generation ends (a webhook here, a read of it, or the ledger's
   * `onTerminal` calling `settleBudget`). Serves `GET /budget`. Absent: no budgets, and that route answers 404.
   */
  budget?: BudgetOptions<Platform>;
  /** Serves `POST /webhooks/mediagen`: the service's signed deliveries. Absent: that route answers 404. */
  webhook?: MediaGenWebhookOptions<Platform>;
}
