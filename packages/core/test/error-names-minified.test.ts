import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as errors from '../src/errors';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** Every error class the SDK exports, by the name an app compares `err.name` against. */
const classNames = Object.entries(errors)
  .filter(([, value]) => typeof value === 'function' && (value === errors.MediaGenError || value.prototype instanceof errors.MediaGenError))
  .map(([name]) => name);

/**
 * The SDK as an app's bundler minifies it (esbuild --minify, no keepNames): class names are
 * renamed there, so an error's `name` must not come from its class's name.
 */
async function minifiedSdk(): Promise<Record<string, unknown>> {
  const result = await build({
    stdin: {
      contents: `export { MediaGenClient, ${classNames.join(', ')} } from ${JSON.stringify(entry)};`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    platform: 'neutral',
    format: 'cjs',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const module = { exports: {} as Record<string, unknown> };
  new Function('module', 'exports', result.outputFiles[0]!.text)(module, module.exports);
  return module.exports;
}

let sdk: Record<string, unknown>;
// A real service that answers every request 429, as the contract shapes it.
const service = createServer((_req, res) => {
  res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
  res.end(JSON.stringify({ error: 'RATE_LIMIT', message: 'Too many requests.', request_id: 'req_1' }));
});

beforeAll(async () => {
  sdk = await minifiedSdk();
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => service.close(() => resolve())));

describe('error names survive an app minifying the SDK', () => {
  it('the bundle really renames the classes (else this test proves nothing)', () => {
    expect(classNames.length).toBeGreaterThanOrEqual(15);
    const renamed = classNames.filter((name) => (sdk[name] as { name: string }).name !== name);
    expect(renamed.length).toBeGreaterThan(0);
  });

  it.each(classNames)('new %s(...).name is its real name', (name) => {
    const Class = sdk[name] as new (...args: unknown[]) => Error;
    const args: Record<string, unknown[]> = {
      GenerationFailedError: [{ generation_id: 'gen_1', status: 'failed', error: { code: 'x', message: 'y', retryable: false } }],
      ParamsValidationError: ['image-fast', []],
    };
    const init = { code: 'X', status: 400, body: {}, retryAfterMs: 1_000 };
    const error = new Class(...(args[name] ?? ['message', init]));
    expect(error.name).toBe(name);
    expect(String(error)).toMatch(new RegExp(`^${name}: `));
  });

  it('a thrown error has its real name: ConfigurationError from the constructor, RateLimitError from a 429', async () => {
    const Client = sdk.MediaGenClient as new (options: object) => { credits: { get(): Promise<unknown> } };
    let thrown: unknown;
    try {
      new Client({ apiKey: 'not a key' });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).name).toBe('ConfigurationError');
    const { port } = service.address() as AddressInfo;
    const client = new Client({ apiKey: 'svc_live_names', baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const error = await client.credits.get().catch((e: unknown) => e);
    expect((error as Error).name).toBe('RateLimitError');
    expect((error as { code: string }).code).toBe('RATE_LIMIT');
  });
});
