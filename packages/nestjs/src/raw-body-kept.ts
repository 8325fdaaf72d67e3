import { ConfigurationError } from '@mediagen/core';
import { checkRawBodyKept } from '@mediagen/core/internal';

const FIX =
  'Create the app with the raw body kept: NestFactory.create(AppModule, { rawBody: true }) ' +
  "(with Fastify: NestFactory.create(AppModule, new FastifyAdapter(), { rawBody: true })), and keep Nest's body parser on " +
  '(no bodyParser: false). The webhook signature covers the exact bytes sent, so @mediagen/nestjs verifies req.rawBody only.';

/**
 * Fails start-up, with the fix in the message, when the app's JSON body parser does not keep
 * `req.rawBody` (core's `checkRawBodyKept` asks the parser itself): otherwise every delivery
 * would fail in production. A platform the check does not know is let through (the first
 * delivery will say).
 */
export async function assertRawBodyKept(adapter: { getType(): string; getInstance(): unknown }, route: string): Promise<void> {
  const support = await checkRawBodyKept(adapter.getType(), adapter.getInstance());
  if (support === 'no-parser') {
    throw new ConfigurationError(
      `MediaGen webhook (${route}): the app was created with bodyParser: false, so req.rawBody is never set. ${FIX}`,
    );
  }
  if (support === 'not-kept') {
    throw new ConfigurationError(
      `MediaGen webhook (${route}): the app was created without rawBody: true, so req.rawBody is not kept. ${FIX}`,
    );
  }
}
