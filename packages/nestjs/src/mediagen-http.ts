import type { MediaGenClient } from '@mediagen/core';
import { isDeliveryTo, parserRefusal, routePath, type WatchedServer, watchBodyDeadline } from '@mediagen/core/internal';
import { createNodeHandler, type NodeHandler, type NodeRequestLike, type NodeResponseLike } from '@mediagen/core/node';
import { createMediaGenHandler, isRefusedDelivery, type MediaGenHandler } from '@mediagen/core/server';
import { APP_ROUTES } from '@mediagen/core/wire';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { GenerationEventHandlers } from './event-handlers';
import { MEDIAGEN_MODULE_OPTIONS } from './module-definition';
import type { MediaGenModuleOptions, NestPlatformRequest } from './options';
import { assertRawBodyKept } from './raw-body-kept';
import { MEDIAGEN_CLIENT } from './tokens';

/** What Nest hands a route: Express's `req` (a Node request), or Fastify's `request` (whose Node request is `raw`). */
type PlatformRequest = NodeRequestLike & NestPlatformRequest;

/** Nest's exception layer as the platform runs it: `(error, req, res, next)` on Express, `(error, request, reply)` on Fastify. */
type ErrorHandler = (error: unknown, req: unknown, res: unknown, next?: unknown) => unknown;

/**
 * One module import's HTTP side: core's one handler (`createMediaGenHandler`) with the module's
 * client, its options and the discovered `@OnGenerationEvent` methods as the webhook's `onEvent`,
 * mounted through core's Node layer (`createNodeHandler`) for the routes' controllers. It also
 * answers the bodies the platform's parser refuses on these routes, and runs the start-up checks.
 */
@Injectable()
export class MediaGenHttp implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  readonly #logger = new Logger('MediaGen');
  #handler: MediaGenHandler<PlatformRequest> | undefined;
  #routes: NodeHandler<PlatformRequest> | undefined;
  #webhook: NodeHandler<PlatformRequest> | undefined;
  #unwatch: (() => void) | undefined;

  constructor(
    @Inject(MEDIAGEN_MODULE_OPTIONS) private readonly options: MediaGenModuleOptions,
    @Inject(MEDIAGEN_CLIENT) private readonly client: MediaGenClient,
    private readonly handlers: GenerationEventHandlers,
    private readonly adapterHost: HttpAdapterHost,
    private readonly appConfig: ApplicationConfig,
  ) {}

  /**
   * Builds the handler (the global prefix is known by now) and puts the answer to parser errors
   * in front of Nest's exception layer: a body the platform's parser refuses (not JSON, over its
   * size limit, a content type it has no parser for) never reaches a route, and would otherwise
   * go to the app's global filters, where a catch-all filter could answer a delivery 200 (the
   * event lost). Nest installs that layer with `httpAdapter.setErrorHandler()` after the
   * modules' `onModuleInit`; this wraps it, and every other error goes on to Nest.
   */
  onModuleInit(): void {
    const { routes, webhook } = this.options;
    if (!routes && !webhook) return;
    const { basePath: _basePath, decorators: _routeDecorators, ...routeOptions } = routes ?? {};
    const { path: _path, decorators: _webhookDecorators, ...webhookOptions } = webhook ?? {};
    const handler = createMediaGenHandler<PlatformRequest>({
      ...routeOptions,
      client: this.client,
      basePath: routes ? this.#fullPath(routes.basePath) : '',
      onError: this.options.onError ?? ((error) => this.#logDefault(error)),
      ...(webhook && { webhook: { ...webhookOptions, onEvent: (event, context) => this.handlers.dispatch(event, context) } }),
    });
    this.#handler = handler;
    if (routes) this.#routes = createNodeHandler(handler);
    if (routes?.uploads) this.#leaveUploadsUnread();
    // The receiver sits at `webhook.path`, wherever the app wants it: it is the handler's webhook route.
    if (webhook) this.#webhook = createNodeHandler(handler, { url: () => `${handler.basePath}${APP_ROUTES.webhook}` });
    this.#wrapErrorHandler();
  }

  /** Nest's Logger as the default `onError`: a refused (forged or broken) delivery is a one-line warning, a fault an error. */
  #logDefault(error: unknown): void {
    if (isRefusedDelivery(error)) this.#logger.warn(`refused a webhook delivery: ${error.code}: ${error.message}`);
    else this.#logger.error(describe(error));
  }

  /** Refuses to start when deliveries could never verify (no `rawBody: true`); bounds the time a delivery's body may take. */
  async onApplicationBootstrap(): Promise<void> {
    const { webhook } = this.options;
    const adapter = this.adapterHost.httpAdapter;
    if (!webhook || !adapter) return;
    await assertRawBodyKept(adapter, this.#webhookPath());
    const server = adapter.getHttpServer() as WatchedServer | undefined;
    if (typeof server?.prependListener !== 'function') return;
    const path = this.#webhookPath();
    this.#unwatch = watchBodyDeadline(server, (req) => isDeliveryTo(path, req.method, req.url), webhook.deadlineMs ?? 4_000);
  }

  /**
   * A graceful shutdown (`app.enableShutdownHooks()`, then SIGTERM): before Nest closes the HTTP
   * server, the handler drains: health 503, no new stream, the open ones end with their terminal event.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.#handler?.drain();
  }

  onApplicationShutdown(): void {
    this.#unwatch?.();
  }

  /** Answers a request to one of the JSON routes; on Express, a path the handler does not serve here goes on (`next`). */
  serveRoutes(req: PlatformRequest, res: unknown, next?: (error?: unknown) => void): Promise<void> {
    return this.#routes!(req, nodeResponse(res), typeof next === 'function' ? next : undefined);
  }

  /** Answers a delivery to the webhook route. Never throws: every outcome is core's status and body. */
  serveWebhook(req: PlatformRequest, res: unknown): Promise<void> {
    return this.#webhook!(req, nodeResponse(res));
  }

  /**
   * On Fastify, a body whose type has no parser (an upload's `image/png`, `video/mp4`…) is refused
   * 415 before any route runs, and a parser that reads it would buffer it past core's limits. So a
   * catch-all parser leaves the upload route's body unread, for core to stream from the Node
   * request with its own limits; on every other route it refuses as Fastify does without one.
   * (Express's parsers skip types they do not take: nothing to do there.)
   */
  #leaveUploadsUnread(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() !== 'fastify') return;
    const fastify = adapter.getInstance() as FastifyLike;
    if (typeof fastify.addContentTypeParser !== 'function') return;
    if (fastify.hasContentTypeParser?.('*')) {
      this.#logger.warn(
        'The app has its own catch-all content-type parser: it reads upload bodies before core can stream them with its limits.',
      );
      return;
    }
    const isUpload = (raw: { method?: string; url?: string }) =>
      this.#handler?.route(raw.method ?? 'GET', (raw.url ?? '').split('?')[0]!) === 'uploads';
    fastify.addContentTypeParser('*', (request, _payload, done) => {
      if (isUpload(request.raw)) return done(null, undefined);
      const type = request.headers?.['content-type'];
      done(Object.assign(new Error(`Unsupported Media Type: ${type ?? ''}`), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }));
    });
  }

  #wrapErrorHandler(): void {
    const adapter = this.adapterHost.httpAdapter as { setErrorHandler?: (handler: ErrorHandler, prefix?: string) => unknown } | undefined;
    if (typeof adapter?.setErrorHandler !== 'function') return;
    const setErrorHandler = adapter.setErrorHandler.bind(adapter);
    const mountFor = (req: PlatformRequest) => this.#mountFor(req);
    adapter.setErrorHandler = (handler, prefix) =>
      // Four parameters: Express tells an error middleware by its arity.
      setErrorHandler(function mediagenParserErrors(error: unknown, req: unknown, res: unknown, next?: unknown) {
        const mount = parserRefusal(error) ? mountFor(req as PlatformRequest) : undefined;
        if (!mount) return handler(error, req, res, next);
        // Answered already (the body deadline's 503) when the parser then saw the connection close: nothing to add.
        return mount.parserError(error, req as PlatformRequest, nodeResponse(res)).then(() => undefined);
      }, prefix);
  }

  /** Which of the two mounts a request is for, if either. */
  #mountFor(req: PlatformRequest | undefined): NodeHandler<PlatformRequest> | undefined {
    // Fastify's request keeps the Node request as `raw`; Express's is the Node request (and a
    // router mounted under the global prefix sees a shortened `url`, not `originalUrl`).
    const node = (req?.raw ?? req) as NodeRequestLike | undefined;
    const url = node?.originalUrl ?? node?.url ?? '';
    if (this.#webhook && isDeliveryTo(this.#webhookPath(), node?.method, url)) return this.#webhook;
    const pathname = url.split('?')[0]!;
    return this.#routes && this.#handler?.route(node?.method ?? 'GET', pathname) ? this.#routes : undefined;
  }

  #webhookPath(): string {
    return this.#fullPath(this.options.webhook?.path ?? '');
  }

  #fullPath(path: string): string {
    return routePath(this.appConfig.getGlobalPrefix(), path);
  }
}

/** The part of a Fastify instance the upload route needs. */
interface FastifyLike {
  addContentTypeParser(
    type: string,
    parser: (
      request: { raw: { method?: string; url?: string }; headers?: Record<string, string | undefined> },
      payload: unknown,
      done: (error: Error | null, body?: unknown) => void,
    ) => void,
  ): void;
  hasContentTypeParser?(type: string): boolean;
}

/**
 * The Node response under what Nest hands a route: Express's `res` is one; Fastify's `reply`
 * wraps it as `raw`, and is told (`hijack()`) that the answer is written there, streamed.
 */
function nodeResponse(res: unknown): NodeResponseLike {
  const reply = res as { raw?: NodeResponseLike; hijack?: () => unknown };
  if (reply.raw && typeof reply.hijack === 'function') {
    reply.hijack();
    return reply.raw;
  }
  return res as NodeResponseLike;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
