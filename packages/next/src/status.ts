import { type Generation, type MediaGenClient, NotFoundError } from '@mediagen/core';
import { errorResponse } from '@mediagen/core/server';
import type { RouteContext } from './route';

export interface StatusHandlerOptions {
  /** The server-side client; its API key never reaches the browser. */
  client: Pick<MediaGenClient, 'generations'>;
  /** Model slugs the browser may see; a generation of another model answers 404. Default: all. */
  allow?: readonly string[];
  /**
   * The app's own record first (what a webhook stored): return a Generation to answer with it
   * and skip the service, or undefined to read the service (the polling fallback).
   */
  lookup?(id: string): Generation | undefined | Promise<Generation | undefined>;
  /** Each Generation read from the service, so the app can record it. */
  onRead?(generation: Generation): unknown;
  /** The route segment holding the id. Default `id` (`app/api/generations/[id]/route.ts`); `?id=` works too. */
  param?: string;
}

/** Ids are uuids; anything far longer is not one and is refused before any request. */
const MAX_ID_CHARS = 200;

/**
 * @deprecated Reads any generation of the account, for any user. Mount the app's handler with
 * `createRouteHandler` instead: its `GET /generations/:id` answers only the user's own.
 *
 * `GET` for one generation's status, for the browser to poll (what `useGeneration` calls):
 * `export const GET = createStatusHandler({ client })` in `app/api/generations/[id]/route.ts`.
 * A route handler, not a server action, because Next runs actions one at a time: polling through
 * one would queue the user's next submit behind it. Errors are core's error bodies.
 */
export function createStatusHandler(options: StatusHandlerOptions): (request: Request, context?: RouteContext) => Promise<Response> {
  const allow = options.allow ? new Set(options.allow) : undefined;
  const param = options.param ?? 'id';
  const notFound = () => errorResponse(new NotFoundError('No such generation.', { status: 404, code: 'NOT_FOUND' }));

  return async function status(request: Request, context?: RouteContext): Promise<Response> {
    try {
      const fromRoute = (await context?.params)?.[param];
      const id = (typeof fromRoute === 'string' ? fromRoute : new URL(request.url).searchParams.get(param)) ?? '';
      if (id === '' || id.length > MAX_ID_CHARS) return notFound();
      const known = await options.lookup?.(id);
      const generation = known ?? (await options.client.generations.get(id));
      if (allow && !allow.has(generation.model)) return notFound();
      if (!known) await options.onRead?.(generation);
      return Response.json(generation, { headers: { 'cache-control': 'no-store' } });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
