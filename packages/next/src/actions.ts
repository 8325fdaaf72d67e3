import type { EstimateResponse, Generation, SubmitResponse } from '@mediagen/core';
import { errorReply, type GenerationPage, type MediaGenHandler } from '@mediagen/core/server';
import { headers } from 'next/headers';
// A namespace, read at call time: `unstable_rethrow` is Next 15+ (on Next 14 a named import of it
// builds, and is undefined when an action calls it).
import * as navigation from 'next/navigation';

/** An error as a value: a server action's thrown message is masked in production builds, a returned one is not. */
export interface ActionError {
  /** The service's code (`INSUFFICIENT_CREDITS`, `INVALID_BODY`, …) or the SDK's (`PARAMS_INVALID`, …). */
  code: string;
  message: string;
  /** What to do about it. */
  next: string | null;
  /** The offending param, when one is known. */
  field?: string;
  request_id: string | null;
}

export type ActionResult<T> = { data: T; error?: undefined } | { data?: undefined; error: ActionError };

export interface GenerationActionsOptions {
  /**
   * The app's one handler (`createMediaGenHandler`, or `createRouteHandler(...).handler`): the
   * actions follow its rules (allowed models and params, per-user idempotency keys, `source`
   * records and `onSubmitted` once per generation, scoped reads), not a copy of them.
   */
  handler: Pick<MediaGenHandler<never>, 'actions'>;
  /**
   * The same `identify` the handler was given: the user, from a `Request` carrying the action's
   * headers and cookies (`next/headers`). Absent: the actions name no user.
   */
  identify?(request: Request): string | undefined | Promise<string | undefined>;
}

export interface SubmitGenerationOptions {
  /** One per form submission, made in the browser, so a double click or a retried action bills once. */
  idempotencyKey?: string;
}

export interface GenerationActions {
  submitGeneration(params: unknown, options?: SubmitGenerationOptions): Promise<ActionResult<SubmitResponse>>;
  /** The exact price of `params` (the same checks as a submit); charges nothing. */
  estimateGeneration(params: unknown): Promise<ActionResult<EstimateResponse>>;
  /** One of the user's generations, read live; another user's id is `NOT_FOUND`. */
  getGeneration(id: unknown): Promise<ActionResult<Generation>>;
  /** The user's generations, newest first (needs the handler's `source`). */
  listGenerations(page?: { limit?: number; cursor?: string }): Promise<ActionResult<GenerationPage>>;
}

/**
 * Server actions for submit, estimate, status and list, on the handler's own rules
 * (`handler.actions`), to wrap in the app's `'use server'` file as explicit
 * `export async function`s (a `'use server'` file exporting anything else breaks every action
 * in it, and makes each export a public endpoint). The user comes from `identify`, run on the
 * action's request headers. Errors come back as values; Next's `redirect()`/`notFound()` pass through.
 */
export function createGenerationActions(options: GenerationActionsOptions): GenerationActions {
  const { handler, identify } = options;
  const { actions } = handler;

  /** Who calls: `identify` on a Request made of the action's headers (cookies included). */
  async function owner(): Promise<string | undefined> {
    if (!identify) return undefined;
    // A Promise since Next 15, the headers themselves on Next 14: `await` takes either.
    const incoming = await headers();
    return identify(new Request(originOf(incoming), { headers: incoming }));
  }

  return {
    submitGeneration: (params, submitOptions = {}) =>
      settle(async () => actions.submit(params, { owner: await owner(), idempotencyKey: submitOptions.idempotencyKey })),
    estimateGeneration: (params) => settle(async () => actions.estimate(params, { owner: await owner() })),
    getGeneration: (id) => settle(async () => actions.get(typeof id === 'string' ? id : undefined, { owner: await owner() })),
    listGenerations: (page) => settle(async () => actions.list({ owner: await owner() }, page)),
  };
}

/** The origin the action was called on, for `request.url` (`http://localhost/` when the headers do not say). */
function originOf(incoming: Headers): string {
  const host = incoming.get('x-forwarded-host') ?? incoming.get('host');
  const proto = incoming.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https' ? 'https' : 'http';
  try {
    return new URL(`${proto}://${host}/`).href;
  } catch {
    return 'http://localhost/';
  }
}

/** Runs an action body: its value as `{ data }`, an error as `{ error }`, Next's control-flow errors rethrown. */
async function settle<T extends object>(body: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    // Only the wire fields (the response meta is not enumerable): what a server action can serialise.
    return { data: { ...(await body()) } };
  } catch (error) {
    rethrowNextError(error);
    const reply = errorReply(error).body;
    const field = (reply.details as { field?: unknown } | undefined)?.field;
    return {
      error: {
        code: String(reply.error),
        message: String(reply.message),
        next: typeof reply.next === 'string' ? reply.next : null,
        ...(typeof field === 'string' ? { field } : {}),
        request_id: typeof reply.request_id === 'string' ? reply.request_id : null,
      },
    };
  }
}

/**
 * Rethrows Next's own control-flow errors. Next 15+: its `unstable_rethrow`. Next 14 has none, so
 * by the digests its `redirect()`, `notFound()` and dynamic-rendering bailouts throw with (what
 * Next 14's `isNextRouterError`, `isDynamicServerError` and `isBailoutToCSRError` test).
 */
function rethrowNextError(error: unknown): void {
  const rethrow = (navigation as { unstable_rethrow?: (error: unknown) => void }).unstable_rethrow;
  if (typeof rethrow === 'function') return rethrow(error);
  const digest = typeof error === 'object' && error !== null ? (error as { digest?: unknown }).digest : undefined;
  if (typeof digest !== 'string') return;
  if (
    digest.startsWith('NEXT_REDIRECT;') ||
    digest === 'NEXT_NOT_FOUND' ||
    digest === 'DYNAMIC_SERVER_USAGE' ||
    digest === 'BAILOUT_TO_CLIENT_SIDE_RENDERING'
  )
    throw error;
}
