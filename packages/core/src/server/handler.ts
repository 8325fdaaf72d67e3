import { eventsOf } from '../events/events-of';
import type { Generation } from '../types';
import { parseLimit } from '../util/limit';
import { ERROR_CODES } from '../wire/error-codes';
import { APP_ROUTES } from '../wire/paths';
import { createMediaGenActions, type MediaGenActions } from './actions';
import { createBudgetGuard } from './budget/budget-guard';
import { keyOfRecord } from './budget/settle';
import { serviceProblem, settingProblems, warnAtStart, webhookSecrets } from './configuration';
import { corsHeaders, preflight, withHeaders } from './cors';
import { defaultOnError } from './default-on-error';
import { errorResponse } from './error-reply';
import { etaOf } from './eta';
import { feedStream, freshGenerationStream, streamRefused } from './event-stream';
import { readJsonObject } from './json-body';
import type { MediaGenContext, MediaGenHandlerOptions } from './options';
import { ownedRead } from './owned-read';
import { submitWithQueue, wantsQueueEvents } from './queued-submit';
import { noSuchRoute, routeError } from './route-error';
import { matchRoute, normalizeBasePath, ROUTE_METHODS, type RouteMatch, type RouteName, relativePath } from './routes';
import { StreamHub } from './stream-hub';
import { createUploads } from './uploads/uploads';
import { userOf } from './user';
import { mountReceiver } from './webhook';

/**
 * The one server surface an app mounts (every adapter does): a Web `Request` in, a `Response`
 * out. The second argument is the adapter's own request (Express's `req`, Hono's `c`), handed
 * to the hooks as `context.platform`.
 */
export interface MediaGenHandler<Platform = unknown> {
  (request: Request, platform?: Platform): Promise<Response>;
  /**
   * The route `pathname` (the full path, base path included) names for `method`, or undefined
   * when it is not this handler's: not one of these paths, or a route it was not configured for
   * (the list without a `source`, the webhook without `webhook`). An adapter passes such
   * requests on to the app's own routes; a known path with another method is answered 405 here.
   */
  route(method: string, pathname: string): RouteName | undefined;
  /** The same rules without HTTP, for server actions: each throws the error the route would answer. */
  readonly actions: MediaGenActions<Platform>;
  readonly basePath: string;
  /** Open event streams now (per handler; `stream.maxStreams` caps it, `stream.maxStreamsPerUser` each user's). */
  readonly openStreams: number;
  /**
   * For a graceful shutdown (on SIGTERM, before the process exits): from now on `GET /health`
   * answers 503 `{ draining: true }` (the balancer stops sending here) and a new event stream is
   * refused with 503 and `Connection: close` (a balancer retries it on another instance); the
   * streams open now end with their terminal event, and requests being answered finish. Resolves
   * once both are done, or after `timeoutMs` (default 25 000, under the usual 30 s a platform
   * waits between SIGTERM and SIGKILL), ending the streams still open (feeds never end by
   * themselves): their browsers reconnect with `Last-Event-ID` to another instance.
   */
  drain(options?: DrainOptions): Promise<DrainResult>;
}

export interface DrainOptions {
  /** How long the open streams and requests may take to finish. Default 25 000 ms. */
  timeoutMs?: number;
}

export interface DrainResult {
  /** Streams still open at the deadline, ended by the handler (their browsers reconnect elsewhere). */
  streamsEnded: number;
  /** Requests (other than streams) still being answered at the deadline. */
  requestsLeft: number;
}

/**
 * Serves, under `basePath`: `POST /generations` (submit; 202 body, or while it waits in the gate
 * for a browser that takes `text/event-stream`, its place in line then that answer: `SUBMIT_EVENTS`), `GET /generations` (the
 * user's generations, newest first), `GET /generations/:id`, `GET /generations/:id/events`
 * (server-sent events), `GET /credits`, `GET /budget`, `POST /estimate`, `GET /models`, `POST /webhooks/mediagen`,
 * `GET /health` (200, or 503 with what keeps the app from serving), and with a source that can
 * cancel, `POST /generations/:id/cancel` (`{ outcome, charged, generation }`).
 * Every refusal is the contract's error body, with the status of the code table in `/wire`.
 */
export function createMediaGenHandler<Platform = unknown>(options: MediaGenHandlerOptions<Platform>): MediaGenHandler<Platform> {
  const { client, cors } = options;
  const basePath = normalizeBasePath(options.basePath);
  const rules = createMediaGenActions(options);
  const hub = new StreamHub(client, options.stream, etaOf(options));
  // A stream's first read: the same owner check as the status route, the status from the hub's shared reads.
  const streamRead = ownedRead(options);
  const shownModels = options.allowModels ? new Set(options.allowModels) : undefined;
  /** A feed shows only the allowed models; made once here, so a stream with no `authorize` holds no request. */
  const modelShown = (generation: Generation) => !shownModels || shownModels.has(generation.model);
  // Every submit, by route or server action, reaches the user's feed streams on every instance.
  const actions: MediaGenActions<Platform> = {
    ...rules,
    async submit(body, input) {
      const submitted = await rules.submit(body, input);
      await hub.announce(input.owner, submitted.generation_id).catch((error: unknown) => report(error, input));
      return submitted;
    },
  };
  const uploads = createUploads(options as MediaGenHandlerOptions<never>);
  const maxBodyBytes = parseLimit(options.maxBodyBytes, 100 * 1024);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 10_000;
  const report = (error: unknown, context?: MediaGenContext<Platform>) => {
    try {
      (options.onError ?? defaultOnError)(error, context);
    } catch {
      // An observer's own failure must not change the answer.
    }
  };
  // Loud at start-up: a setting that would fail quietly later (a webhook answered 500, every
  // visitor one user) is said on the console now, and `GET /health` says it while it lasts.
  warnAtStart(settingProblems(options as MediaGenHandlerOptions<never>), `${basePath}${APP_ROUTES.health}`);
  // The webhook route: the same receiver and options as `createWebhookHandler` (the receiver alone).
  const { webhook } = options;
  // A webhook's end settles the user's budget: a store that fails answers 5xx, so the service redelivers.
  const budgetOfEvents = options.budget ? createBudgetGuard(client, options.budget as never) : undefined;
  const receive = webhook
    ? mountReceiver(
        { ...webhook, secrets: webhookSecrets(options) },
        {
          client,
          onError: (error) => report(error),
          // The source first (the ledger records the state), then the budget, then the app's handler.
          onEvent: async (event, context) => {
            const recorded = await options.source?.onEvent?.(event);
            // The record names the intent's key: a reservation whose submit was answered only by a
            // resend (the ledger's, after a 429 or a lost answer) is found by it, never left open.
            await budgetOfEvents?.settleEvent(event, keyOfRecord(recorded));
            // Terminal: its slot in the account gate is free. Said here because the streams that
            // follow it end on this very event, stopping their wait() before it would settle
            // (found by the fleet soak: slots held for the gate's TTL, then every submit queued).
            const id = event.data?.generation_id;
            if ((event.type === 'generation.completed' || event.type === 'generation.failed') && typeof id === 'string') {
              await client.gate?.settle(id).catch((error: unknown) => report(error));
            }
            await webhook.onEvent?.(event, context);
          },
        },
      )
    : undefined;

  async function answer(request: Request, match: RouteMatch, context: MediaGenContext<Platform>): Promise<Response> {
    const { name, id } = match;
    const method = request.method;
    if (name === 'generations' && method === 'POST') {
      userOf(options, context); // before the body is read: a refused submit costs no read
      const body = await readJsonObject(request, maxBodyBytes, bodyTimeoutMs);
      const input = { ...context, idempotencyKey: request.headers.get('idempotency-key') };
      if (!wantsQueueEvents(request)) return Response.json(await actions.submit(body, input), { status: 202 });
      // A browser that takes queue events is told where its submit waits in the gate, if it waits.
      const { response, finished } = await submitWithQueue(
        (onQueue, gone) => actions.submit(body, { ...input, onQueue, signal: AbortSignal.any([gone, request.signal]) }),
        (error) => report(error, context),
      );
      if (finished) track(finished);
      return response;
    }
    if (name === 'uploads') {
      userOf(options, context);
      if (!isMediaContentType(request.headers.get('content-type'))) {
        // As for JSON: a page on another site can post a form, text or no type at all without a
        // CORS preflight (and with the user's cookie); a media type it cannot send unasked.
        throw routeError(
          'MEDIA_NOT_ACCEPTED',
          "Send the file's bytes as the body, with its media type (image/png, video/mp4…) as Content-Type.",
          {
            details: { field: 'Content-Type' },
          },
        );
      }
      return Response.json(await uploads.receive(request, context.owner), { status: 201, headers: { 'cache-control': 'no-store' } });
    }
    if (name === 'generations') {
      const query = new URL(request.url).searchParams;
      return Response.json(
        await actions.list(context, { limit: Number(query.get('limit')) || undefined, cursor: query.get('cursor') ?? undefined }),
      );
    }
    if (name === 'estimate')
      return Response.json(await actions.estimate(await readJsonObject(request, maxBodyBytes, bodyTimeoutMs), context));
    if (name === 'generation') return Response.json(await actions.get(id, context));
    if (name === 'cancel') return Response.json(await actions.cancel(id, context), { headers: { 'cache-control': 'no-store' } });
    if (name === 'events') {
      // Refused before the read too: a refused stream costs the service nothing.
      const refused = hub.refusal(context.owner);
      if (refused) return streamRefused(refused, hub);
      const read = () => streamRead(id, context, (known) => hub.read(known, () => client.generations.get(known)));
      return freshGenerationStream(hub, eventsOf(client), id, read, request, context.owner);
    }
    if (name === 'feed') {
      if (!options.source) throw noSuchRoute('This app keeps no list of generations (no source is configured).');
      userOf(options, context);
      const { authorize } = options;
      return feedStream({
        hub,
        source: options.source,
        context: { ...context, request },
        visible: authorize ? (generation) => modelShown(generation) && authorize(context, generation) : modelShown,
      });
    }
    if (name === 'credits') return Response.json(await actions.credits(context));
    if (name === 'budget') return Response.json(await actions.budget(context), { headers: { 'cache-control': 'no-store' } });
    if (name === 'health') {
      // A draining instance is healthy but must get no new work: the balancer's check takes it out.
      if (hub.draining)
        return Response.json({ ok: false, draining: true, problems: [] }, { status: 503, headers: { 'cache-control': 'no-store' } });
      const problems = settingProblems(options as MediaGenHandlerOptions<never>);
      // With no address the service check could only repeat it.
      const service = client.baseUrl ? await serviceProblem(client, basePath) : undefined;
      if (service) problems.push(service);
      return Response.json(
        { ok: problems.length === 0, problems },
        { status: problems.length ? 503 : 200, headers: { 'cache-control': 'no-store' } },
      );
    }
    return Response.json(await actions.models(context));
  }

  /** Requests being answered now (a stream counts until its answer starts), and who waits for none. */
  let inFlight = 0;
  let onIdle: (() => void) | undefined;
  /** A submit answered as a stream while it waits in the gate counts until its answer is sent. */
  function track(answered: Promise<void>): void {
    inFlight++;
    void answered.finally(() => {
      if (--inFlight === 0) onIdle?.();
    });
  }
  const handler = async function mediagenHandler(request: Request, platform?: Platform): Promise<Response> {
    inFlight++;
    try {
      return closeIfUnread(request, await route(request, platform));
    } finally {
      if (--inFlight === 0) onIdle?.();
    }
  } as MediaGenHandler<Platform>;

  async function drain({ timeoutMs = 25_000 }: DrainOptions = {}): Promise<DrainResult> {
    const deadline = Date.now() + timeoutMs;
    const streamsEnded = await hub.drain(timeoutMs);
    if (inFlight > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        onIdle = resolve;
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      clearTimeout(timer);
      onIdle = undefined;
    }
    return { streamsEnded, requestsLeft: inFlight };
  }

  async function route(request: Request, platform: Platform | undefined): Promise<Response> {
    const path = relativePath(new URL(request.url).pathname, basePath);
    const match = path === undefined ? undefined : matchRoute(path);
    if (!match) return errorResponse(noSuchRoute());
    const methods = ROUTE_METHODS[match.name];
    if (match.name === 'webhook' && receive && methods.includes(request.method)) {
      return receive(request, platform);
    }
    if (match.name === 'webhook' && !receive) return errorResponse(noSuchRoute('No webhook receiver is configured here.'));
    // The service fetches an input's link with no session: the link's signature is its authority.
    if (match.name === 'upload' && methods.includes(request.method)) {
      const respond = uploads.store?.respond?.bind(uploads.store);
      return respond && match.id
        ? respond(match.id, request).catch(errorResponse)
        : errorResponse(noSuchRoute('No uploads are served here.'));
    }
    const origin = request.headers.get('origin');
    const allowed = corsHeaders(cors, origin);
    if (request.method === 'OPTIONS' && cors && origin && allowed['access-control-allow-origin']) return preflight(cors, origin, methods);
    if (!methods.includes(request.method)) {
      return withHeaders(refusal('METHOD_NOT_ALLOWED', `${request.method} is not answered here.`), { allow: methods.join(', ') });
    }
    let context: MediaGenContext<Platform> = { owner: undefined, request, platform };
    try {
      context = { ...context, owner: await options.identify?.(request, platform) };
      return withHeaders(await answer(request, match, context), allowed);
    } catch (error) {
      const response = errorResponse(error);
      if (response.status >= 500) report(error, context);
      return withHeaders(response, allowed);
    }
  }

  /** A path of these routes is this handler's (a wrong method answers 405), unless it is not configured here. */
  function serves(name: RouteName, method: string): boolean {
    if (name === 'webhook') return receive !== undefined;
    if (name === 'uploads') return uploads.store !== undefined;
    if (name === 'upload') return uploads.store?.respond !== undefined;
    if (name === 'budget') return options.budget !== undefined;
    if (name === 'cancel') return options.source?.cancel !== undefined;
    return !((name === 'feed' || (name === 'generations' && method === 'GET')) && options.source === undefined);
  }

  Object.defineProperty(handler, 'openStreams', { get: () => hub.open });
  return Object.assign(handler, {
    route(method: string, pathname: string) {
      const path = relativePath(pathname, basePath);
      const name = path === undefined ? undefined : matchRoute(path)?.name;
      return name && serves(name, method.toUpperCase()) ? name : undefined;
    },
    actions,
    basePath,
    drain,
  });
}

/**
 * A body left unread (refused by its type, its size or its route) would be read by the server
 * as the start of the next request on the connection, or make it drop the connection under
 * the client's next request: `Connection: close` tells the client to open a new one.
 */
function closeIfUnread(request: Request, response: Response): Response {
  const unread = response.status === 413 || (request.body !== null && !request.bodyUsed);
  return unread ? withHeaders(response, { connection: 'close' }) : response;
}

/**
 * A media type a page cannot send cross-site without a preflight: not one of the CORS-safelisted
 * form and text types (nor none at all), and shaped `type/subtype`.
 */
function isMediaContentType(value: string | null): boolean {
  const type = (value ?? '').split(';')[0]!.trim().toLowerCase();
  return /^[\w.+-]+\/[\w.+-]+$/.test(type) && !['text/plain', 'multipart/form-data', 'application/x-www-form-urlencoded'].includes(type);
}

function refusal(code: keyof typeof ERROR_CODES, message: string): Response {
  const { status, next } = ERROR_CODES[code];
  return Response.json({ error: code, message, next, request_id: null }, { status });
}
