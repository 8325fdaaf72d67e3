/**
 * Whether a framework's JSON body parser keeps the raw bytes (`req.rawBody`) the webhook
 * signature covers, asked of the parser itself with a tiny body, at start-up:
 * - `kept`: it does;
 * - `not-kept`: it parses JSON but drops the bytes (NestJS without `rawBody: true`);
 * - `no-parser`: no JSON parser is registered (NestJS with `bodyParser: false`), so nothing sets it;
 * - `unknown`: a platform this check does not know (the first delivery will say).
 * `platform` is the framework (`'express'`, `'fastify'`), `instance` its app (Express's `app`, the Fastify instance).
 */
export type RawBodySupport = 'kept' | 'not-kept' | 'no-parser' | 'unknown';

export async function checkRawBodyKept(platform: string, instance: unknown): Promise<RawBodySupport> {
  const kept =
    platform === 'express' ? await expressKeepsRawBody(instance) : platform === 'fastify' ? await fastifyKeepsRawBody(instance) : undefined;
  if (kept === undefined) return 'unknown';
  if (kept === 'no-parser') return 'no-parser';
  return kept ? 'kept' : 'not-kept';
}

type Middleware = (req: unknown, res: unknown, next: (error?: unknown) => void) => void;

async function expressKeepsRawBody(app: unknown): Promise<boolean | 'no-parser' | undefined> {
  // Express 4 keeps it as `_router` (its `app.router` getter throws); Express 5 as `router`.
  const router = (app as { _router?: { stack?: unknown } })?._router ?? routerOf(app);
  const stack = router?.stack;
  if (!Array.isArray(stack)) return undefined;
  const layer = stack.find((l: { handle?: { name?: string } }) => l?.handle?.name === 'jsonParser') as { handle: Middleware } | undefined;
  if (!layer) return 'no-parser';
  const req = await probeRequest();
  await new Promise<void>((resolve) => layer.handle(req, {}, () => resolve()));
  return isBytes((req as { rawBody?: unknown }).rawBody);
}

type ParserFn = (req: unknown, body: Uint8Array, done: (error: unknown, body?: unknown) => void) => unknown;
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
    const result = parser.fn!(req, probeBytes(), () => resolve());
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

/**
 * A real (unconnected) `IncomingMessage` carrying `{}` as JSON, for the app's own parser.
 * `node:` modules are loaded here only, when a Node framework asks: the entry stays loadable elsewhere.
 */
async function probeRequest(): Promise<unknown> {
  const { IncomingMessage } = await import('node:http');
  const { Socket } = await import('node:net');
  const socket = new Socket();
  // body-parser skips a request whose socket is gone; this one only needs to look open.
  Object.defineProperty(socket, 'readable', { value: true });
  const req = new IncomingMessage(socket);
  req.method = 'POST';
  req.url = '/';
  req.headers = { 'content-type': 'application/json', 'content-length': '2' };
  req.push(probeBytes());
  req.push(null);
  return req;
}

function isBytes(value: unknown): boolean {
  return value instanceof Uint8Array;
}

/** `{}` as Node's `Buffer` when there is one (the parsers call `toString()` on it), else as bytes. */
function probeBytes(): Uint8Array {
  const buffer = (globalThis as { Buffer?: { from(text: string): Uint8Array } }).Buffer;
  return buffer ? buffer.from('{}') : new TextEncoder().encode('{}');
}

function routerOf(app: unknown): { stack?: unknown } | undefined {
  try {
    return (app as { router?: { stack?: unknown } })?.router;
  } catch {
    return undefined;
  }
}
