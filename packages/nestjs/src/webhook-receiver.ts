import type { IncomingMessage, Server } from 'node:http';
import { type MediaGenClient, WebhookVerificationError } from '@mediagen/core';
import { isRawBody, type NodeRequestLike, toWebRequest } from '@mediagen/core/node';
import { createWebhookHandler, errorResponse, isJsonContentType } from '@mediagen/core/server';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { routePath, watchBodyDeadline } from './body-deadline';
import { GenerationEventHandlers } from './event-handlers';
import { MEDIAGEN_MODULE_OPTIONS } from './module-definition';
import type { MediaGenModuleOptions } from './options';
import { assertRawBodyKept } from './raw-body-check';
import { MEDIAGEN_CLIENT } from './tokens';

/** What Nest hands the controller: Express's request (a Node request), or Fastify's (whose Node request is `raw`). */
type PlatformRequest = NodeRequestLike & { raw?: NodeRequestLike };

/**
 * The webhook route's work, for one module instance: `req.rawBody` as a Web `Request` into core's
 * receiver (verification, de-duplication, status codes, publishing to `client.events`), the
 * discovered handlers as its `onEvent`, and the answer written back through Nest's HTTP adapter.
 */
@Injectable()
export class MediaGenWebhookReceiver implements OnApplicationBootstrap, OnApplicationShutdown {
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

  /** Refuses to start when deliveries could never verify (no `rawBody: true`); bounds the time a body may take. */
  async onApplicationBootstrap(): Promise<void> {
    const { webhook } = this.options;
    const adapter = this.adapterHost.httpAdapter;
    if (!webhook || !adapter) return;
    await assertRawBodyKept(this.adapterHost, webhook.path);
    const server = adapter.getHttpServer() as Server | undefined;
    if (typeof server?.prependListener !== 'function') return;
    const path = routePath(this.appConfig.getGlobalPrefix(), webhook.path);
    const isWebhook = (req: IncomingMessage) => req.method === 'POST' && (req.url ?? '').split('?')[0] === path;
    this.#unwatch = watchBodyDeadline(server, isWebhook, webhook.deadlineMs ?? 4_000);
  }

  onApplicationShutdown(): void {
    this.#unwatch?.();
  }

  /** Answers one delivery. Never throws: every outcome is core's status and body. */
  async receive(req: PlatformRequest, res: unknown): Promise<void> {
    const response = await this.#answer(req);
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of response.headers) adapter.setHeader(res, name, value);
    adapter.reply(res, await response.text(), response.status);
  }

  async #answer(req: PlatformRequest): Promise<Response> {
    if (!this.#handle) return Response.json({ error: 'NOT_FOUND' }, { status: 404 });
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
