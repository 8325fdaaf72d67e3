import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { ConfigurationError } from '@mediagen/core';
import type { HttpAdapterHost } from '@nestjs/core';

const FIX =
  'Create the app with the raw body kept: NestFactory.create(AppModule, { rawBody: true }) ' +
  "(with Fastify: NestFactory.create(AppModule, new FastifyAdapter(), { rawBody: true })), and keep Nest's body parser on " +
  '(no bodyParser: false). The webhook signature covers the exact bytes sent, so @mediagen/nestjs verifies req.rawBody only.';

/**
 * Fails start-up, with the fix in the message, when the app's JSON body parser does not keep
 * `req.rawBody`: otherwise every delivery would fail its signature check in production. It
 * asks the parser Nest registered for the platform to parse a tiny body and looks at the result.
 */
export async function assertRawBodyKept(adapterHost: HttpAdapterHost, route: string): Promise<void> {
  const adapter = adapterHost.httpAdapter;
  if (!adapter) return; // An application context with no HTTP server: no route is served.
  const type = adapter.getType();
  const instance = adapter.getInstance() as unknown;
  const kept =
    type === 'express' ? await expressKeepsRawBody(instance) : type === 'fastify' ? await fastifyKeepsRawBody(instance) : undefined;
  if (kept === undefined) return; // A platform this check does not know: the first delivery will say.
  if (kept === 'no-parser') {
    throw new ConfigurationError(
      `MediaGen webhook (${route}): the app was created with bodyParser: false, so req.rawBody is never set. ${FIX}`,
    );
  }
  if (!kept)
    throw new ConfigurationError(
      `MediaGen webhook (${route}): the app was created without rawBody: true, so req.rawBody is not kept. ${FIX}`,
    );
}

type Middleware = (req: unknown, res: unknown, next: (error?: unknown) => void) => void;

async function expressKeepsRawBody(app: unknown): Promise<boolean | 'no-parser' | undefined> {
  const router = (app as { router?: { stack?: unknown } })?.router ?? (app as { _router?: { stack?: unknown } })?._router;
  const stack = router?.stack;
  if (!Array.isArray(stack)) return undefined;
  const layer = stack.find((l: { handle?: { name?: string } }) => l?.handle?.name === 'jsonParser') as { handle: Middleware } | undefined;
  if (!layer) return 'no-parser';
  const req = probeRequest();
  await new Promise<void>((resolve) => layer.handle(req, {}, () => resolve()));
  return isBytes((req as { rawBody?: unknown }).rawBody);
}

type ParserFn = (req: unknown, body: Buffer, done: (error: unknown, body?: unknown) => void) => unknown;
type ParserRegistry = Record<symbol, unknown> & { getParser?(type: string): { fn?: ParserFn } | undefined };

async function fastifyKeepsRawBody(fastify: unknown): Promise<boolean | 'no-parser' | undefined> {
  const registry = bySymbol(fastify, 'fastify.contentTypeParser') as ParserRegistry | undefined;
  const parser = registry?.getParser?.('application/json');
  if (typeof parser?.fn !== 'function') return undefined;
  // Fastify has a JSON parser of its own, which never keeps the raw body. Still in place, it
  // means Nest registered none: the app was created with bodyParser: false.
  if (parser.fn === bySymbol(registry, 'fastify.defaultJSONParse')) return 'no-parser';
  const req: { rawBody?: unknown } = {};
  await new Promise<void>((resolve) => {
    const result = parser.fn!(req, Buffer.from('{}'), () => resolve());
    if (result && typeof (result as Promise<unknown>).then === 'function')
      (result as Promise<unknown>).then(
        () => resolve(),
        () => resolve(),
      );
  });
  return isBytes(req.rawBody);
}

/** A property Fastify keeps under a symbol (not exported), found by the symbol's description. */
function bySymbol(target: unknown, description: string): unknown {
  if (typeof target !== 'object' || target === null) return undefined;
  const symbol = Object.getOwnPropertySymbols(target).find((s) => s.description === description);
  return symbol ? (target as Record<symbol, unknown>)[symbol] : undefined;
}

/** A real (unconnected) `IncomingMessage` carrying `{}` as JSON, for the app's own parser. */
function probeRequest(): IncomingMessage {
  const socket = new Socket();
  // body-parser skips a request whose socket is gone; this one only needs to look open.
  Object.defineProperty(socket, 'readable', { value: true });
  const req = new IncomingMessage(socket);
  req.method = 'POST';
  req.url = '/';
  req.headers = { 'content-type': 'application/json', 'content-length': '2' };
  req.push(Buffer.from('{}'));
  req.push(null);
  return req;
}

function isBytes(value: unknown): boolean {
  return value instanceof Uint8Array;
}
