import { type BodyLimit, createNodeHandler, parseLimit } from '@mediagen/core/node';
import { createMediaGenHandler, type MediaGenHandlerOptions } from '@mediagen/core/server';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';

export type { MediaGenContext, MediaGenHandlerOptions } from '@mediagen/core/server';

export interface MediaGenFastifyOptions extends Omit<MediaGenHandlerOptions<FastifyRequest>, 'basePath' | 'maxBodyBytes'> {
  /** Largest submit body: bytes, or `'100kb'`-style. Default `'100kb'`. */
  maxBodyBytes?: BodyLimit;
}

/**
 * Core's one server handler (`createMediaGenHandler`) as a Fastify plugin, its routes under the
 * prefix it is registered with: `app.register(mediagenPlugin({ client, identify, source }), { prefix: '/api' })`.
 * Hooks get Fastify's `request` as `context.platform`. Inside the plugin's own scope no
 * content-type parser reads the body: core reads it from the Node request (raw bytes for the
 * webhook signature, its own limits and deadline), and answers every refusal itself.
 */
export function mediagenPlugin(options: MediaGenFastifyOptions): FastifyPluginAsync {
  return async function mediagen(fastify) {
    const { maxBodyBytes, ...rest } = options;
    const handler = createMediaGenHandler<FastifyRequest>({
      ...rest,
      basePath: fastify.prefix,
      maxBodyBytes: parseLimit(maxBodyBytes, 100 * 1024),
    });
    const handle = createNodeHandler(handler, { onError: rest.onError });
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
