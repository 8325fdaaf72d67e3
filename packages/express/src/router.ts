import type { GenerateParams, MediaGenClient, SubmitResponse } from '@mediagen/core';
import type { NextFunction, Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express';
import { sendError } from './errors';
import { BodyError, readJsonObject } from './json-body';
import { parseLimit, type BodyLimit } from './limit';

/** The generate params a browser may send by default (spec: POST /api/v1/generate); `estimate` is left out. */
export const DEFAULT_ALLOWED_PARAMS: readonly string[] = [
  'model', 'prompt', 'negative_prompt', 'aspect_ratio', 'size', 'quality', 'resolution', 'duration', 'audio',
  'input_image', 'input_video', 'input_audio', 'reference_images', 'seed', 'number_results', 'enhance',
];

export interface MediaGenRouterOptions {
  /** The server-side client; its API key never leaves the server. */
  client: MediaGenClient;
  /** Model slugs the browser may submit and see; default: every model of the account. */
  allowModels?: readonly string[];
  /** Param keys the browser may send; default `DEFAULT_ALLOWED_PARAMS`. Others get 422 INVALID_BODY. */
  allowParams?: readonly string[];
  /** Largest submit body. Default `'100kb'`. */
  limit?: BodyLimit;
  /** Runs before a submit: authorise, rewrite or add params (return them), or throw to refuse. */
  beforeSubmit?(params: GenerateParams, req: ExpressRequest): GenerateParams | void | Promise<GenerateParams | void>;
  /** Runs after a submit was accepted (record the generation); the 202 body is sent once it settles. */
  onSubmitted?(submitted: SubmitResponse, params: GenerateParams, req: ExpressRequest): unknown;
}

type Route = (req: ExpressRequest, res: ExpressResponse) => Promise<void>;

/**
 * JSON routes for an app's own front end, relative to where it is mounted
 * (`app.use('/api/mediagen', mediagenRouter({ client }))`):
 * `POST /generations` (202 body), `GET /generations/:id`, `GET /models`, `GET /credits`.
 * SDK errors become the spec's status and error body. Other paths fall through to `next()`.
 */
export function mediagenRouter(options: MediaGenRouterOptions): RequestHandler {
  const { client } = options;
  const allowModels = options.allowModels ? new Set(options.allowModels) : undefined;
  const allowParams = new Set(options.allowParams ?? DEFAULT_ALLOWED_PARAMS);
  const maxBytes = parseLimit(options.limit, 100 * 1024);

  const submit: Route = async (req, res) => {
    const body = await readJsonObject(req, maxBytes);
    const field = Object.keys(body).find((key) => !allowParams.has(key));
    if (field) return refuse(res, 422, 'INVALID_BODY', `The param "${field}" is not accepted here.`, { details: { field } });
    if (typeof body.model !== 'string' || body.model === '') {
      return refuse(res, 422, 'INVALID_BODY', 'The body needs a "model" slug.', { details: { field: 'model' } });
    }
    if (allowModels && !allowModels.has(body.model)) {
      return refuse(res, 403, 'MODEL_NOT_ALLOWED', `The model "${body.model}" is not enabled here.`, { model: body.model });
    }
    const params = ((await options.beforeSubmit?.(body as GenerateParams, req)) ?? body) as GenerateParams;
    const idempotencyKey = req.get('idempotency-key') || undefined;
    const submitted = await client.generations.create(params, idempotencyKey ? { idempotencyKey } : {});
    await options.onSubmitted?.(submitted, params, req);
    res.status(202).json(submitted);
  };

  const status: Route = async (req, res) => {
    const generation = await client.generations.get(decodeURIComponent(req.path.slice('/generations/'.length)));
    if (allowModels && !allowModels.has(generation.model)) {
      return refuse(res, 404, 'NOT_FOUND', 'No such generation.');
    }
    res.json(generation);
  };

  const models: Route = async (_req, res) => {
    const list = await client.models.list();
    res.json(allowModels ? { ...list, models: list.models.filter((m) => allowModels.has(m.slug)) } : list);
  };

  const credits: Route = async (_req, res) => {
    res.json(await client.credits.get());
  };

  return async function mediagenRoutes(req: ExpressRequest, res: ExpressResponse, next: NextFunction) {
    const route = pick(req.method, req.path, { submit, status, models, credits });
    if (!route) return next();
    try {
      await route(req, res);
    } catch (error) {
      if (error instanceof BodyError) return refuse(res, error.status, 'INVALID_BODY', error.message);
      sendError(res, error);
    }
  };
}

function pick(method: string, path: string, routes: Record<'submit' | 'status' | 'models' | 'credits', Route>): Route | undefined {
  if (method === 'POST' && path === '/generations') return routes.submit;
  if (method !== 'GET') return undefined;
  if (/^\/generations\/[^/]+$/.test(path)) return routes.status;
  if (path === '/models') return routes.models;
  if (path === '/credits') return routes.credits;
  return undefined;
}

function refuse(res: ExpressResponse, status: number, error: string, message: string, extra: Record<string, unknown> = {}): void {
  res.status(status).json({ error, message, next: 'Change the request; sending it again as is will fail the same way.', request_id: null, ...extra });
}
