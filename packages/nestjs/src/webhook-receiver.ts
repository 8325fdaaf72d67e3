import type { IncomingMessage, Server } from 'node:http';
import { type MediaGenClient, MediaGenError, WebhookVerificationError } from '@mediagen/core';
import { isRawBody, type NodeRequestLike, toWebRequest } from '@mediagen/core/node';
import { createWebhookHandler, errorResponse, isJsonContentType, webhookRefusal } from '@mediagen/core/server';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { isDeliveryTo, routePath, watchBodyDeadline } from './body-deadline';
import { GenerationEventHandlers } from './event-handlers';
import { MEDIAGEN_MODULE_OPTIONS } from './module-definition';
import type { MediaGenModuleOptions } from './options';
import { type ParserRefusal, parserRefusal, REFUSAL_CODES } from './parser-refusal';
import { assertRawBodyKept } from './raw-body-check';
import { MEDIAGEN_CLIENT } from './tokens';

/** What Nest hands the controller: Express's request (a Node request), or Fastify's (whose Node request is `raw`). */
type PlatformRequest = NodeRequestLike & { raw?: NodeRequestLike };

/** Nest's exception layer as the platform runs it: `(error, req, res, next)` on Express, `(error, request, reply)` on Fastify. */
type ErrorHandler = (error: unknown, req: unknown, res: unknown, next?: unknown) => unknown;

/**
 * The webhook route's work, for one module instance: `req.rawBody` as a Web `Request` into core's
 * receiver (verification, de-duplication, status codes, publishing to `client.events`), the
 * discovered handlers as its `onEvent`, and the answer written back through Nest's HTTP adapter.
 */
@Injectable()
export class MediaGenWebhookReceiver implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly #logger = new Logger('MediaGenWebhook');
  readonly #handle: ((request: Request) => Promise<Response>) | undefined;
  #unwatch: (() => void) | undefined;

  constructor(
    @Inject(MEDIAGEN_MODULE_OPTIONS) private readonly options: MediaGenModuleOptions,
    @Inject(MEDIAGEN_CLIENT) client: MediaGenClient,
    handlers: GenerationEventHandlers,
    private readonly adapterHost: HttpAdapterHost,
    private readonly appConfig: ApplicationConfig,
  ) {
    const webhook = options.webhook;
    if (!webhook) return;
    this.#handle = createWebhookHandler({
      secrets: webhook.secrets,
      dedupe: webhook.dedupe,
      ...(webhook.maxBodyBytes !== undefined && { maxBodyBytes: webhook.maxBodyBytes }),
      ...(webhook.deadlineMs !== undefined && { deadlineMs: webhook.deadlineMs }),
      events: client.events,
      onEvent: (event, context) => handlers.dispatch(event, context),
      onError: (error) => this.#logger.error(describe(error)),
    });
  }

  /**
   * A body the platform's parser refuses (not JSON, over its size limit, a content type it has
   * no parser for) never reaches the route: the platform hands the error to Nest's exception
   * layer, i.e. to the app's global filters, where a catch-all filter could answer it 200 (the
   * event lost) or a bare 500. Nest installs that layer with `httpAdapter.setErrorHandler()`
   * after the modules' `onModuleInit`, so this puts the webhook's answer in front of it: parser
   * errors on this route get core's status and error body; every other error goes on to Nest.
   */
  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter as { setErrorHandler?: (handler: ErrorHandler, prefix?: string) => unknown } | undefined;
    if (!this.options.webhook || typeof adapter?.setErrorHandler !== 'function') return;
    const setErrorHandler = adapter.setErrorHandler.bind(adapter);
    const refuse = (refusal: ParserRefusal, req: PlatformRequest, res: unknown) => this.#refuse(refusal, req, res);
    const isWebhook = (req: PlatformRequest) => this.#isWebhook(req);
    adapter.setErrorHandler = (handler, prefix) =>
      // Four parameters: Express tells an error middleware by its arity.
      setErrorHandler(function mediagenWebhookParserErrors(error: unknown, req: unknown, res: unknown, next?: unknown) {
        const refusal = isWebhook(req as PlatformRequest) ? parserRefusal(error) : undefined;
        return refusal ? refuse(refusal, req as PlatformRequest, res) : handler(error, req, res, next);
      }, prefix);
  }

  /** Refuses to start when deliveries could never verify (no `rawBody: true`); bounds the time a body may take. */
  async onApplicationBootstrap(): Promise<void> {
    const { webhook } = this.options;
    const adapter = this.adapterHost.httpAdapter;
    if (!webhook || !adapter) return;
    await assertRawBodyKept(this.adapterHost, webhook.path);
    const server = adapter.getHttpServer() as Server | undefined;
    if (typeof server?.prependListener !== 'function') return;
    const path = this.#path();
    const isWebhook = (req: IncomingMessage) => isDeliveryTo(path, req.method, req.url);
    this.#unwatch = watchBodyDeadline(server, isWebhook, webhook.deadlineMs ?? 4_000);
  }

  onApplicationShutdown(): void {
    this.#unwatch?.();
  }

  /** Answers one delivery. Never throws: every outcome is core's status and body. */
  async receive(req: PlatformRequest, res: unknown): Promise<void> {
    await this.#send(res, await this.#answer(req));
  }

  async #send(res: unknown, response: Response): Promise<void> {
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of response.headers) adapter.setHeader(res, name, value);
    adapter.reply(res, await response.text(), response.status);
  }

  /**
   * Answers a delivery the platform's parser refused. Bytes that arrived but are not JSON go to
   * core like any delivery (`req.rawBody` is kept before parsing): a bad signature is 401, a
   * signed body that is not an event 400. The rest never reached core: the same status and
   * code core gives the case, with its error body. Never throws.
   */
  async #refuse(refusal: ParserRefusal, req: PlatformRequest, res: unknown): Promise<void> {
    const adapter = this.adapterHost.httpAdapter;
    try {
      // Answered already: the body deadline's 503, and the parser then saw the connection close.
      if (adapter.isHeadersSent(res)) return;
      await this.#send(res, refusal === 'unparsable' ? await this.#answer(req) : webhookRefusal(REFUSAL_CODES[refusal]));
    } catch (error) {
      this.#logger.error(describe(error));
    }
  }

  #path(): string {
    return routePath(this.appConfig.getGlobalPrefix(), this.options.webhook?.path ?? '');
  }

  #isWebhook(req: PlatformRequest | undefined): boolean {
    // Fastify's request keeps the Node request as `raw`; Express's is the Node request (and a
    // router mounted under the global prefix sees a shortened `url`, not `originalUrl`).
    const node = req?.raw ?? req;
    return isDeliveryTo(this.#path(), node?.method, node?.originalUrl ?? node?.url);
  }

  async #answer(req: PlatformRequest): Promise<Response> {
    if (!this.#handle) {
      const error = new MediaGenError('No webhook route is configured here.', {
        status: 404,
        code: 'NOT_FOUND',
        next: 'Set webhook in MediaGenModule.forRoot options.',
      });
      return errorResponse(error);
    }
    // Fastify's request keeps the Node request as `raw`; Express's is the Node request.
    const node = req.raw ?? req;
    const { rawBody } = req;
    if (isRawBody(rawBody)) {
      return this.#handle(toWebRequest(node, { body: rawBody instanceof ArrayBuffer ? new Uint8Array(rawBody) : rawBody }));
    }
    const contentType = req.headers['content-type'];
    if (!isJsonContentType(typeof contentType === 'string' ? contentType : null)) {
      // Not JSON, so no parser kept it: core refuses it (415) without reading a byte.
      return this.#handle(toWebRequest(node, { body: new Uint8Array() }));
    }
    // Start-up checks for this; a parser swapped in later can still lose the bytes. A 5xx keeps
    // the delivery alive until the app is fixed.
    const error = new WebhookVerificationError(
      'req.rawBody is missing: the exact bytes the signature covers were not kept.',
      'WEBHOOK_RAW_BODY_MISSING',
      'Create the app with NestFactory.create(AppModule, { rawBody: true }) and keep its JSON body parser.',
    );
    this.#logger.error(describe(error));
    return errorResponse(error);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
