import {
  type EstimateResponse,
  type GenerateParams,
  type Generation,
  InvalidRequestError,
  type MediaGenClient,
  NotFoundError,
  ParamsValidationError,
  PermissionDeniedError,
  type SubmitResponse,
  validateParams,
} from '@mediagen/core';
import { DEFAULT_ALLOWED_PARAMS, errorReply } from '@mediagen/core/server';
import { unstable_rethrow } from 'next/navigation';

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
  /** The server-side client; its API key never leaves the server. */
  client: MediaGenClient;
  /** Model slugs the browser may use and see. Default: every model of the account. */
  allow?: readonly string[];
  /** Param keys the browser may send. Default: core's `DEFAULT_ALLOWED_PARAMS` (every generate param but `estimate`). */
  allowParams?: readonly string[];
  /** After an accepted submit (record it). May `redirect()`; its errors become error values. */
  onSubmitted?(submitted: SubmitResponse, params: GenerateParams): unknown;
}

export interface SubmitOptions {
  /** One per form submission, made in the browser, so a double click or a retried action bills once. */
  idempotencyKey?: string;
}

export interface GenerationActions {
  submitGeneration(params: unknown, options?: SubmitOptions): Promise<ActionResult<SubmitResponse>>;
  /** The exact price of `params` (the same checks as a submit); charges nothing. */
  estimateGeneration(params: unknown): Promise<ActionResult<EstimateResponse>>;
  getGeneration(id: unknown): Promise<ActionResult<Generation>>;
}

const MAX_ID_CHARS = 200;
const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/**
 * Server actions for submit, estimate and status, to wrap in the app's own `'use server'` file as
 * explicit `export async function`s (a `'use server'` file exporting a constant breaks every
 * action in it). They check what the browser sends (allowed models, allowed keys, params against
 * the account's model list) and return errors as values; Next's own `redirect()`/`notFound()`
 * pass through.
 */
export function createGenerationActions(options: GenerationActionsOptions): GenerationActions {
  const { client } = options;
  const allowModels = options.allow ? new Set(options.allow) : undefined;
  const allowParams = new Set(options.allowParams ?? DEFAULT_ALLOWED_PARAMS);

  /** The params as the browser may send them, checked against the model's schema; throws SDK errors. */
  async function checked(input: unknown): Promise<GenerateParams> {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid('The params must be an object.', 'params');
    const params = input as Record<string, unknown>;
    const field = Object.keys(params).find((key) => !allowParams.has(key));
    if (field) throw invalid(`The param "${field}" is not accepted here.`, field);
    const slug = params.model;
    if (typeof slug !== 'string' || slug === '') throw invalid('The params need a "model" slug.', 'model');
    if (allowModels && !allowModels.has(slug)) {
      throw new PermissionDeniedError(`The model "${slug}" is not enabled here.`, {
        status: 403,
        code: 'MODEL_NOT_ALLOWED',
        next: 'Pick one of the models this app offers.',
        body: { model: slug },
      });
    }
    const model = await client.models.find(slug);
    if (!model) {
      throw invalid(`No model "${slug}" on this account.`, 'model', 'UNKNOWN_MODEL');
    }
    const issues = validateParams(model, params as GenerateParams);
    if (issues.length > 0) throw new ParamsValidationError(slug, issues);
    return params as GenerateParams;
  }

  return {
    async submitGeneration(params, submitOptions = {}) {
      return settle(async () => {
        const key = submitOptions.idempotencyKey;
        if (key !== undefined && (typeof key !== 'string' || key === '' || key.length > MAX_IDEMPOTENCY_KEY_CHARS)) {
          throw invalid(`The idempotency key must be 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} characters.`, 'idempotencyKey');
        }
        const request = await checked(params);
        const submitted = await client.generations.create(request, key ? { idempotencyKey: key } : {});
        await options.onSubmitted?.(submitted, request);
        return submitted;
      });
    },
    async estimateGeneration(params) {
      return settle(async () => client.generations.estimate(await checked(params)));
    },
    async getGeneration(id) {
      return settle(async () => {
        if (typeof id !== 'string' || id === '' || id.length > MAX_ID_CHARS) throw notFound();
        const generation = await client.generations.get(id);
        if (allowModels && !allowModels.has(generation.model)) throw notFound();
        return generation;
      });
    },
  };
}

/** Runs an action body: its value as `{ data }`, an error as `{ error }`, Next's control-flow errors rethrown. */
async function settle<T extends object>(body: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    // Only the wire fields (the response meta is not enumerable): what a server action can serialise.
    return { data: { ...(await body()) } };
  } catch (error) {
    unstable_rethrow(error);
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

function invalid(message: string, field: string, code = 'INVALID_BODY'): InvalidRequestError {
  return new InvalidRequestError(message, {
    status: 422,
    code,
    next: 'Change the params; sending them again as they are will fail the same way.',
    body: { details: { field } },
  });
}

function notFound(): NotFoundError {
  return new NotFoundError('No such generation.', { status: 404, code: 'NOT_FOUND' });
}
