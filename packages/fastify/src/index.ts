import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler, type MediaGenHandler, type MediaGenHandlerOptions } from '@mediagen/core/server';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';

/** Core's handler options; hooks get Fastify's `request` as `context.platform`. The mount path is `register`'s `prefix`. */
export type RouteHandlerOptions = Omit<MediaGenHandlerOptions<FastifyRequest>, 'basePath'>;

/**
 * Core's one server handler (`createMediaGenHandler`) as a Fastify plugin, its routes under the
 * prefix it is registered with: `app.register(createRouteHandler({ client, identify, source }), { prefix: '/api' })`.
 * Hooks get Fastify's `request` as `context.platform`. Inside the plugin's own scope no
 * content-type parser reads the body: core reads it from the Node request (raw bytes for the
 * webhook signature, its own limits and deadline), and answers every refusal itself.
 */
/** The plugin, and `drain` for a graceful shutdown: every handler it made (one per registration) drains. */
export type RoutePlugin = FastifyPluginAsync & Pick<MediaGenHandler, 'drain'>;

export function createRouteHandler(options: RouteHandlerOptions): RoutePlugin {
  const handlers: MediaGenHandler<FastifyRequest>[] = [];
  const plugin: FastifyPluginAsync = async function mediagen(fastify) {
    const handler = createMediaGenHandler<FastifyRequest>({ ...options, basePath: fastify.prefix });
    handlers.push(handler);
    const handle = createNodeHandler(handler, { onError: options.onError });
    fastify.removeAllContentTypeParsers();
    // Leaves the body unread (any content type): core streams it from `request.raw`.
    fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    fastify.all('/*', async (request, reply) => {
      // Core writes the answer to the Node response (streamed, for server-sent events).
      reply.hijack();
      await handle(request, reply.raw);
    });
  };
  const drain: MediaGenHandler['drain'] = async (drainOptions) => {
    const results = await Promise.all(handlers.map((handler) => handler.drain(drainOptions)));
    return {
      streamsEnded: results.reduce((sum, r) => sum + r.streamsEnded, 0),
      requestsLeft: results.reduce((sum, r) => sum + r.requestsLeft, 0),
    };
  };
  return Object.assign(plugin, { drain });
}
