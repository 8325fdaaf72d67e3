import type { MediaGenClient } from '../client';
import type { GenerateParams, SubmitResponse } from '../types';
import type { WebhookDedupeStore } from '../webhooks/dedupe';
import { errorResponse } from './error-reply';
import { createMediaGenHandler } from './handler';
import { noSuchRoute } from './route-error';

/** @deprecated Use `createMediaGenHandler` (its options: `identify` replaces `idempotencyScope`; hooks get `context.platform`). */
export interface ApiHandlerOptions<Context = undefined> {
  client: MediaGenClient;
  allowModels?: readonly string[];
  allowParams?: readonly string[];
  maxBodyBytes?: number;
  beforeSubmit?(params: GenerateParams, context: Context): GenerateParams | void | Promise<GenerateParams | void>;
  onSubmitted?(submitted: SubmitResponse, params: GenerateParams, context: Context): unknown;
  idempotencyScope?(context: Context): string | undefined | Promise<string | undefined>;
  onError?(error: unknown, context: Context): void;
  submittedStore?: WebhookDedupeStore;
}

/** @deprecated Use `createMediaGenHandler`. */
export interface ApiHandler<Context = undefined> {
  handles(method: string, path: string): boolean;
  handle(request: Request, path: string, context: Context): Promise<Response>;
}

const OLD_ROUTES = new Set(['generations', 'generation', 'models', 'credits']);

/**
 * @deprecated Use `createMediaGenHandler`, which serves these routes and more under one rule
 * set. This is that handler behind the 0.x signature (`handle(request, path, context)`), kept
 * so apps written against it still build; it answers `POST /generations`, `GET /generations/:id`,
 * `GET /models` and `GET /credits`.
 */
export function createApiHandler<Context = undefined>(options: ApiHandlerOptions<Context>): ApiHandler<Context> {
  const { beforeSubmit, onSubmitted, idempotencyScope, onError, ...shared } = options;
  const handler = createMediaGenHandler<Context>({
    ...shared,
    // The scope names whose key it is; reads stayed unscoped in 0.x.
    ...(idempotencyScope && { identify: (_request, context) => idempotencyScope(context as Context), authorize: () => true }),
    ...(beforeSubmit && { beforeSubmit: (params, context) => beforeSubmit(params, context.platform as Context) }),
    ...(onSubmitted && { onSubmitted: (submitted, params, context) => onSubmitted(submitted, params, context.platform as Context) }),
    ...(onError && { onError: (error, context) => onError(error, context?.platform as Context) }),
  });
  const handles = (method: string, path: string) => {
    const name = handler.route(method, path);
    if (name === undefined || !OLD_ROUTES.has(name)) return false;
    return name === 'generations' ? method === 'POST' : method === 'GET';
  };
  return {
    handles,
    handle(request, path, context) {
      const url = new URL(path, request.url);
      const init = { method: request.method, headers: request.headers, body: request.body, signal: request.signal, duplex: 'half' };
      return handles(request.method, path)
        ? handler(new Request(url, init as RequestInit), context)
        : Promise.resolve(errorResponse(noSuchRoute(`No route ${request.method} ${path}.`)));
    },
  };
}
