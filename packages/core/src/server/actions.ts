import { toHex } from '../crypto/hmac';
import { ConfigurationError, isMediaGenError } from '../errors';
import type { GateWait } from '../gate/store';
import type { LedgerCancel } from '../ledger/cancel';
import type { CreditsSummary, EstimateResponse, GenerateParams, Generation, ModelList, SubmitResponse } from '../types';
import { isPlausibleId } from '../util/plausible-id';
import { MemoryDedupeStore } from '../webhooks/dedupe';
import { IDEMPOTENCY_KEY_RULE, isIdempotencyKey } from '../wire/idempotency';
import { SUBMIT_FIELDS } from '../wire/params';
import { type BudgetView, createBudgetGuard, noBudget } from './budget/budget-guard';
import { explained } from './next-step';
import type { MediaGenContext, MediaGenHandlerOptions } from './options';
import { ownedRead } from './owned-read';
import { noSuchRoute, notFound, routeError } from './route-error';
import type { GenerationPage } from './source';
import { createUploads } from './uploads/uploads';
import { userOf } from './user';

/** The generate params a browser may send by default (spec: POST /api/v1/generate); `estimate` is left out. */
export const DEFAULT_ALLOWED_PARAMS: readonly string[] = SUBMIT_FIELDS.filter((f) => f !== 'estimate');

/** What a submit carries beside its body. */
export interface SubmitInput<Platform = unknown> extends MediaGenContext<Platform> {
  /** The browser's `Idempotency-Key`: one per intent, so a double click bills once. */
  idempotencyKey?: string | null | undefined;
  /**
   * Told where the submit stands each time it waits for a slot in the client's gate (a gate store
   * that queues: `queueGateStore`, `RedisGateStore`). The submit route streams it to a browser
   * that asks (`SUBMIT_EVENTS` in `/wire`).
   */
  onQueue?: ((wait: GateWait) => void) | undefined;
  /** Stops the submit while it is not sent yet (nothing charged). Default: the request's own signal. */
  signal?: AbortSignal | undefined;
}

/**
 * The rules of every route, callable without HTTP (Next.js server actions use them as they are):
 * each throws the SDK error whose status and body the route answers.
 */
export interface MediaGenActions<Platform = unknown> {
  submit(body: unknown, input: SubmitInput<Platform>): Promise<SubmitResponse>;
  estimate(body: unknown, context: MediaGenContext<Platform>): Promise<EstimateResponse>;
  /** The generation, read live from the service, if `context.owner` may see it; else `NotFoundError`. */
  get(id: string | undefined, context: MediaGenContext<Platform>): Promise<Generation>;
  /**
   * Stops the user's generation or intent (`id`: its generation id, or the submission's
   * `Idempotency-Key` as the browser sent it) through `source.cancel`; `NotFoundError` for
   * another user's or an unknown id, and when the source cannot cancel.
   */
  cancel(id: string | undefined, context: MediaGenContext<Platform>): Promise<LedgerCancel>;
  list(context: MediaGenContext<Platform>, page?: { limit?: number; cursor?: string | undefined }): Promise<GenerationPage>;
  credits(context: MediaGenContext<Platform>): Promise<CreditsSummary>;
  /** The user's budget (`GET /budget`): limits, what is left and when it resets; `NotFoundError` without the `budget` option. */
  budget(context: MediaGenContext<Platform>): Promise<BudgetView>;
  models(context: MediaGenContext<Platform>): Promise<ModelList>;
}

/** Long enough for any `onSubmitted`; a crashed one's claim lapses. */
const SUBMITTED_LEASE_MS = 60_000;
/** A replay comes within seconds (a double click) or minutes (a retry); a day covers both. */
const SUBMITTED_TTL_MS = 24 * 3_600_000;
const LIST_DEFAULT = 50;
const LIST_MAX = 100;

export function createMediaGenActions<Platform = unknown>(options: MediaGenHandlerOptions<Platform>): MediaGenActions<Platform> {
  const { client, source } = options;
  if (options.identify && !source && !options.authorize) {
    // Reads would answer any user's id: nothing could tell whose it is.
    throw new ConfigurationError(
      'createMediaGenHandler: identify names users, but with neither a source nor authorize, every user could read every generation. Pass a source (the generation ledger) or authorize.',
    );
  }
  const allowModels = options.allowModels ? new Set(options.allowModels) : undefined;
  const allowParams = new Set(options.allowParams ?? DEFAULT_ALLOWED_PARAMS);
  const submittedStore = options.submittedStore ?? new MemoryDedupeStore();
  const uploads = createUploads(options as MediaGenHandlerOptions<never>);
  const budget = options.budget ? createBudgetGuard(client, options.budget as never) : undefined;
  /** Budget bookkeeping after the service answered: reported, never thrown (it must not turn a billed submit into an error). */
  const quietly = (work: Promise<unknown>, context?: MediaGenContext<Platform>) =>
    work.catch((error: unknown) => {
      try {
        options.onError?.(error, context);
      } catch {
        // An observer's failure changes nothing.
      }
    });

  /** The body as generate params the browser may send, after the app's own hook. */
  async function paramsOf(body: unknown, context: MediaGenContext<Platform>): Promise<GenerateParams> {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw routeError('INVALID_BODY', 'The body must be a JSON object.');
    const field = Object.keys(body).find((key) => !allowParams.has(key));
    if (field) {
      const accepted = [...allowParams];
      throw routeError('INVALID_BODY', `The param "${field}" is not accepted here; these are: ${accepted.join(', ')}.`, {
        details: { field, accepted },
      });
    }
    const { model } = body as { model?: unknown };
    if (typeof model !== 'string' || model === '')
      throw routeError('INVALID_BODY', 'The body needs a "model" slug.', { details: { field: 'model' } });
    if (allowModels && !allowModels.has(model))
      throw routeError('MODEL_NOT_ALLOWED', `The model "${model}" is not enabled here.`, { model });
    const given = ((await options.beforeSubmit?.(body as GenerateParams, context)) ?? body) as GenerateParams;
    // Upload tokens become their links here, once: the submit recorded (and resent) holds the links.
    const params = await uploads.resolve(given, context.owner);
    // The service takes any generation of the account as an input: only one this user may read goes on.
    if (source || options.authorize) {
      for (const field of ['input_image', 'input_video'] as const) {
        const value = params[field];
        if (typeof value !== 'string' || /^[a-z][\w+.-]*:/i.test(value)) continue;
        await get(value, context).catch((error: unknown) => {
          throw isMediaGenError(error) && error.status === 404
            ? routeError('INVALID_BODY', `\`${field}\` names no completed generation of yours.`, { details: { field } })
            : error;
        });
      }
    }
    return params;
  }

  /** The generation, read live from the service, if `context.owner` may see it; else `NotFoundError`. */
  const owned = ownedRead(options);
  const get = async (id: string | undefined, context: MediaGenContext<Platform>) => {
    const generation = await owned(id, context);
    // A read that finds the generation ended settles its budget (once, whichever instance reads it).
    if (budget) await quietly(budget.settle(generation), context);
    return generation;
  };

  /**
   * `source.record` (unless `source.submit` recorded it already) and `onSubmitted` once per
   * generation id: a replay finds the claim and skips them.
   */
  async function recordOnce(submitted: SubmitResponse, params: GenerateParams, context: MediaGenContext<Platform>): Promise<void> {
    const record = source?.submit ? undefined : source;
    if (!record && !options.onSubmitted) return;
    const key = `submitted:${submitted.generation_id}`;
    if ((await submittedStore.claim(key, SUBMITTED_LEASE_MS)) !== 'claimed') return;
    try {
      await record?.record({ owner: context.owner, submitted, params });
      await options.onSubmitted?.(submitted, params, context);
    } catch (error) {
      await submittedStore.release(key);
      throw error;
    }
    await submittedStore.complete(key, SUBMITTED_TTL_MS);
  }

  const actions: MediaGenActions<Platform> = {
    async submit(body, input) {
      userOf(options, input);
      // The browser's key is its input: a malformed one is its error (4xx), not the app's (5xx).
      const sent = input.idempotencyKey || undefined;
      if (sent !== undefined && !isIdempotencyKey(sent)) {
        throw routeError('INVALID_BODY', IDEMPOTENCY_KEY_RULE, { details: { field: 'Idempotency-Key' } });
      }
      const params = await paramsOf(body, input);
      let key = sent === undefined || input.owner === undefined ? sent : await scopedKey(input.owner, sent);
      // With budgets every submit has a key: its reservation is named by it, and a replay of it counts nothing twice.
      if (budget) key ??= globalThis.crypto.randomUUID();
      // Priced and reserved before anything is sent; over a limit this throws and nothing is sent.
      const admitted = budget && key ? await budget.admit(params, key, input as MediaGenContext<never>) : undefined;
      let submitted: SubmitResponse;
      try {
        // Intent first when the source can: it is written before the call, so no crash loses a billed generation.
        const { onQueue } = input;
        const signal = input.signal ?? input.request?.signal;
        // Without a source, only a submit streamed to its browser (`onQueue`) stops when the browser goes.
        submitted = source?.submit
          ? await source.submit(params, { owner: input.owner, idempotencyKey: key, signal, onQueue })
          : await client.generations.create(params, { ...(key && { idempotencyKey: key }), ...(onQueue && { onQueue, signal }) });
      } catch (error) {
        if (admitted) await quietly(budget!.failed(admitted, error), input);
        throw error;
      }
      if (admitted) await quietly(budget!.answered(admitted, submitted.generation_id), input);
      await recordOnce(submitted, params, input);
      return submitted;
    },
    async estimate(body, context) {
      return client.generations.estimate(await paramsOf(body, context));
    },
    get,
    async cancel(id, context) {
      const cancel = source?.cancel?.bind(source);
      if (!cancel) throw noSuchRoute('This app cannot stop generations: its source has no cancel (use the generation ledger).');
      userOf(options, context);
      if (!isPlausibleId(id)) throw notFound();
      // A generation id (or a key the source knows as is), else the browser's key as submit scoped it.
      const answer =
        (await cancel(id, context.owner)) ??
        (context.owner !== undefined && isIdempotencyKey(id) ? await cancel(await scopedKey(context.owner, id), context.owner) : undefined);
      if (!answer) throw notFound();
      return answer;
    },
    async list(context, page = {}) {
      if (!source) throw noSuchRoute('This app keeps no list of generations (no source is configured).');
      userOf(options, context);
      const limit = Math.min(LIST_MAX, Math.max(1, Math.floor(Number(page.limit) || LIST_DEFAULT)));
      const result = await source.list(context.owner, { limit, cursor: page.cursor });
      return { generations: result.generations, next_cursor: result.next_cursor ?? null };
    },
    async credits() {
      return client.credits.get();
    },
    async budget(context) {
      if (!budget) throw noBudget();
      userOf(options, context);
      return budget.view(context as MediaGenContext<never>);
    },
    async models() {
      const list = await client.models.list();
      return allowModels ? { ...list, models: list.models.filter((m) => allowModels.has(m.slug)) } : list;
    },
  };
  // Every action's failure in the app's terms (`nextStep`), for the routes and server actions alike.
  const explain = explained(options);
  return Object.fromEntries(
    Object.entries(actions).map(([name, action]) => [
      name,
      (...args: never[]) => (action as (...a: never[]) => Promise<unknown>)(...args).catch(explain),
    ]),
  ) as unknown as MediaGenActions<Platform>;
}

/** The key the service sees for `key` sent by `owner`: hex SHA-256, so any owner text makes a valid header. */
async function scopedKey(owner: string, key: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${owner}\n${key}`));
  return toHex(new Uint8Array(digest));
}
