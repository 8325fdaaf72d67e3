import type { MediaGenClient } from '../client';
import type { GenerateParams, Generation, SubmitResponse } from '../types';
import type { WebhookDedupeStore } from '../webhooks/dedupe';
import type { WebhookContext, WebhookHandlerOptions } from '../webhooks/handler';
import type { WebhookEvent } from '../webhooks/verify';
import type { CorsOptions } from './cors';
import type { GenerationSource } from './source';
import type { StreamOptions } from './stream-hub';

/** Who is asking, as every hook sees it. */
export interface MediaGenContext<Platform = unknown> {
  /** The user, from `identify` (or the caller of a server action); undefined when the app names none. */
  owner: string | undefined;
  /** The Web request, on the HTTP routes (absent in a server action). */
  request?: Request | undefined;
  /** What the adapter passed along: Express's `req`, Hono's `c`, Fastify's `request`… */
  platform?: Platform | undefined;
}

/** What `onEvent` gets: core's webhook context plus the adapter's own request. */
export interface MediaGenWebhookContext<Platform = unknown> extends WebhookContext {
  platform: Platform | undefined;
}

export interface MediaGenWebhookOptions<Platform = unknown>
  extends Omit<WebhookHandlerOptions, 'onEvent' | 'client' | 'events' | 'context' | 'onError' | 'waitUntil'> {
  /** The app's handler, once per event. Default: none (the event still resolves `wait()` through `client.events`). */
  onEvent?(event: WebhookEvent, context: MediaGenWebhookContext<Platform>): unknown;
  /**
   * Keeps work alive after the answer on runtimes that stop at the response: gets the work and
   * the adapter's request (a Worker's `c.executionCtx.waitUntil`, Next's `after`).
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
   * Whether `context.owner` may see `generation`, on every read and stream (a list is scoped by
   * `source.list`). Refused reads answer 404, as the service does for another account's id.
   * Default: allowed when the source knows the id for this owner; with no source, allowed.
   */
  authorize?(context: MediaGenContext<Platform>, generation: Generation): boolean | Promise<boolean>;
  /** Where submits are recorded and reads are scoped (the generation ledger, the app's own table). */
  source?: GenerationSource;
  /** Model slugs the browser may submit and see; default: every model of the account. */
  allowModels?: readonly string[];
  /** Param keys the browser may send; default `DEFAULT_ALLOWED_PARAMS`. Others get 422 INVALID_BODY. */
  allowParams?: readonly string[];
  /** Largest submit or estimate body, in bytes. Default 100 KiB. */
  maxBodyBytes?: number;
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
  /** Serves `POST /webhooks/mediagen`: the service's signed deliveries. Absent: that route answers 404. */
  webhook?: MediaGenWebhookOptions<Platform>;
}
