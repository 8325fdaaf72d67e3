import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler, type MediaGenHandlerOptions } from '@mediagen/core/server';
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
export function createRouteHandler(options: RouteHandlerOptions): FastifyPluginAsync {
  return async function mediagen(fastify) {
    const handler = createMediaGenHandler<FastifyRequest>({ ...options, basePath: fastify.prefix });
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
}
