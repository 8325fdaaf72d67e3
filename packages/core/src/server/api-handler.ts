import type { MediaGenClient } from '../client';
import { toHex } from '../crypto/hmac';
import type { GenerateParams, SubmitResponse } from '../types';
import { BODY_TOO_LARGE, decodeJsonText, isJsonContentType, readBody } from '../util/body';
import { isIdempotencyKey } from '../util/idempotency-key';
import { MemoryDedupeStore, type WebhookDedupeStore } from '../webhooks/dedupe';
import { SUBMIT_FIELDS } from '../wire/params';
import { errorResponse } from './error-reply';

/** The generate params a browser may send by default (spec: POST /api/v1/generate); `estimate` is left out. */
export const DEFAULT_ALLOWED_PARAMS: readonly string[] = SUBMIT_FIELDS.filter((f) => f !== 'estimate');

/** `Context` is whatever the adapter passes along with each request (Express's `req`, …). */
export interface ApiHandlerOptions<Context = undefined> {
  /** The server-side client; its API key never leaves the server. */
  client: MediaGenClient;
  /** Model slugs the browser may submit and see; default: every model of the account. */
  allowModels?: readonly string[];
  /** Param keys the browser may send; default `DEFAULT_ALLOWED_PARAMS`. Others get 422 INVALID_BODY. */
  allowParams?: readonly string[];
  /** Largest submit body, in bytes. Default 100 KiB. */
  maxBodyBytes?: number;
  /**
   * Runs before a submit: authorise, rewrite or add params (return them). To refuse, throw a
   * `SubmitRefusedError` (a 4xx with your message); any other throw is a 500 with its message hidden.
   */
  beforeSubmit?(params: GenerateParams, context: Context): GenerateParams | void | Promise<GenerateParams | void>;
  /**
   * Runs once per generation after a submit was accepted (record it); the 202 body is sent once
   * it settles. An idempotent replay of the same submit (a double click, a retry with the same
   * `Idempotency-Key`) returns the same generation without running it again. If it throws, the
   * answer is 500 and a resend with the same key runs it again (nothing is billed twice).
   */
  onSubmitted?(submitted: SubmitResponse, params: GenerateParams, context: Context): unknown;
  /**
   * Whose the browser's `Idempotency-Key` is (a user or session id, from your auth): the key the
   * service sees becomes a hash of this scope and the browser's key, so two users who send the
   * same key never name one submit. Default: none, the key is passed on as sent.
   */
  idempotencyScope?(context: Context): string | undefined | Promise<string | undefined>;
  /**
   * Sees every failure answered 5xx: the browser gets a masked message for the app's own faults
   * (a throwing hook, a store, its config), so this is where their details go. Default
   * `console.error`.
   */
  onError?(error: unknown, context: Context): void;
  /**
   * Remembers which generations `onSubmitted` has recorded. Default: in memory, per handler;
   * share one across instances (`RedisDedupeStore`) so a replay on another instance is known too.
   */
  submittedStore?: WebhookDedupeStore;
}

export interface ApiHandler<Context = undefined> {
  /** Whether `method path` is one of the routes, so an adapter can pass others on untouched. */
  handles(method: string, path: string): boolean;
  /**
   * Answers one request. `path` is relative to where the routes are mounted:
   * `POST /generations` (the 202 body), `GET /generations/:id`, `GET /models`, `GET /credits`.
   */
  handle(request: Request, path: string, context: Context): Promise<Response>;
}

type Route = 'submit' | 'status' | 'models' | 'credits';

/** Long enough for any `onSubmitted`; a crashed one's claim lapses. */
const SUBMITTED_LEASE_MS = 60_000;
/** A replay comes within seconds (a double click) or minutes (a retry); a day covers both. */
const SUBMITTED_TTL_MS = 24 * 3_600_000;

/**
 * JSON routes for an app's own front end, framework-neutral (Web `Request` in, `Response` out):
 * the adapters mount them. SDK errors become the spec's status and error body.
 */
export function createApiHandler<Context = undefined>(options: ApiHandlerOptions<Context>): ApiHandler<Context> {
  const { client } = options;
  const allowModels = options.allowModels ? new Set(options.allowModels) : undefined;
  const allowParams = new Set(options.allowParams ?? DEFAULT_ALLOWED_PARAMS);
  const maxBytes = options.maxBodyBytes ?? 100 * 1024;
  const submittedStore = options.submittedStore ?? new MemoryDedupeStore();

  const routes: Record<Route, (request: Request, path: string, context: Context) => Promise<Response>> = {
    async submit(request, _path, context) {
      const body = await readJsonObject(request, maxBytes);
      if (body instanceof Response) return body;
      const field = Object.keys(body).find((key) => !allowParams.has(key));
      if (field) return refuse(422, 'INVALID_BODY', `The param "${field}" is not accepted here.`, { details: { field } });
      if (typeof body.model !== 'string' || body.model === '') {
        return refuse(422, 'INVALID_BODY', 'The body needs a "model" slug.', { details: { field: 'model' } });
      }
      if (allowModels && !allowModels.has(body.model)) {
        return refuse(403, 'MODEL_NOT_ALLOWED', `The model "${body.model}" is not enabled here.`, { model: body.model });
      }
      // The browser's key, when it sends one, makes a double click bill once. It is the
      // browser's input: a malformed one is its error (4xx), not the app's (5xx).
      const idempotencyKey = request.headers.get('idempotency-key') || undefined;
      if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)) {
        return refuse(422, 'INVALID_BODY', 'The Idempotency-Key header must be 1-255 visible ASCII characters.', {
          details: { field: 'Idempotency-Key' },
        });
      }
      const params = ((await options.beforeSubmit?.(body as GenerateParams, context)) ?? body) as GenerateParams;
      const scope = idempotencyKey === undefined ? undefined : await options.idempotencyScope?.(context);
      const key = scope === undefined ? idempotencyKey : await scopedKey(scope, idempotencyKey as string);
      const submitted = await client.generations.create(params, key ? { idempotencyKey: key } : {});
      if (options.onSubmitted) await recordOnce(submitted, params, context);
      return Response.json(submitted, { status: 202 });
    },
    async status(_request, path) {
      const id = decodeSegment(path.slice('/generations/'.length));
      if (id === undefined) return refuse(404, 'NOT_FOUND', 'No such generation.');
      const generation = await client.generations.get(id);
      if (allowModels && !allowModels.has(generation.model)) return refuse(404, 'NOT_FOUND', 'No such generation.');
      return Response.json(generation);
    },
    async models() {
      const list = await client.models.list();
      return Response.json(allowModels ? { ...list, models: list.models.filter((m) => allowModels.has(m.slug)) } : list);
    },
    async credits() {
      return Response.json(await client.credits.get());
    },
  };

  /** `onSubmitted` once per generation id: a replay finds the claim and skips it. */
  async function recordOnce(submitted: SubmitResponse, params: GenerateParams, context: Context): Promise<void> {
    const key = `submitted:${submitted.generation_id}`;
    if ((await submittedStore.claim(key, SUBMITTED_LEASE_MS)) !== 'claimed') return;
    try {
      await options.onSubmitted?.(submitted, params, context);
    } catch (error) {
      await submittedStore.release(key);
      throw error;
    }
    await submittedStore.complete(key, SUBMITTED_TTL_MS);
  }

  return {
    handles: (method, path) => route(method, path) !== undefined,
    async handle(request, path, context) {
      const name = route(request.method, path);
      if (!name) return refuse(404, 'NOT_FOUND', `No route ${request.method} ${path}.`);
      try {
        return await routes[name](request, path, context);
      } catch (error) {
        const response = errorResponse(error);
        if (response.status >= 500) {
          try {
            (options.onError ?? ((e: unknown) => console.error(e)))(error, context);
          } catch {
            // An observer's own failure must not change the answer.
          }
        }
        return response;
      }
    },
  };
}

function route(method: string, path: string): Route | undefined {
  if (method === 'POST') return path === '/generations' ? 'submit' : undefined;
  if (method !== 'GET') return undefined;
  if (/^\/generations\/[^/]+$/.test(path)) return 'status';
  if (path === '/models') return 'models';
  if (path === '/credits') return 'credits';
  return undefined;
}

/** A percent-decoded path segment, or undefined when its encoding is broken (`%ZZ`). */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The body as a JSON object, or the 4xx that says why it is not one. */
async function readJsonObject(request: Request, maxBytes: number): Promise<Record<string, unknown> | Response> {
  if (!isJsonContentType(request.headers.get('content-type'))) return refuse(415, 'INVALID_BODY', 'Send the body as application/json.');
  let value: unknown;
  try {
    value = JSON.parse(decodeJsonText(await readBody(request, maxBytes)));
  } catch (error) {
    if (error === BODY_TOO_LARGE) return refuse(413, 'INVALID_BODY', `The body is larger than ${maxBytes} bytes.`);
    return refuse(422, 'INVALID_BODY', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return refuse(422, 'INVALID_BODY', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}

/** The key the service sees for `key` sent by the user `scope`: hex SHA-256, so any scope text makes a valid header. */
async function scopedKey(scope: string, key: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${scope}\n${key}`));
  return toHex(new Uint8Array(digest));
}

function refuse(status: number, error: string, message: string, extra: Record<string, unknown> = {}): Response {
  return Response.json(
    { error, message, next: 'Change the request; sending it again as is will fail the same way.', request_id: null, ...extra },
    { status },
  );
}
