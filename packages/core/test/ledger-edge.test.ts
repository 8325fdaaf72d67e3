import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { KEY, ledgerEmulator } from './support/ledger-emulator';

/**
 * `@mediagen/core/ledger` runs where core runs (edge runtimes): bundled for the neutral platform
 * with the client, and driven in a context that holds only Web APIs, against the real emulator.
 */
const emu = await ledgerEmulator();
afterAll(() => emu.close());

async function bundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `export { MediaGenClient } from './src/index.ts'; export { createGenerationLedger, MemoryGenerationStore } from './src/ledger.ts';`,
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    platform: 'neutral',
    format: 'iife',
    globalName: 'MediaGen',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    define: { __MEDIAGEN_VERSION__: '"0.0.0"' },
  });
  return result.outputFiles[0]!.text;
}

describe('ledger on an edge runtime', () => {
  it('bundles without Node built-ins and records, sends and reads back a generation with only Web APIs', async () => {
    const code = await bundle();
    expect(code).not.toMatch(/require\(["']node:/);
    const context = createContext({
      fetch,
      Headers,
      Request,
      Response,
      AbortController,
      AbortSignal,
      crypto: globalThis.crypto,
      TextEncoder,
      TextDecoder,
      URL,
      setTimeout,
      clearTimeout,
      structuredClone,
      console,
    });
    runInContext(code, context);
    const result = await runInContext(
      `(async () => {
        if (typeof process !== 'undefined' || typeof require !== 'undefined') throw new Error('not an edge context');
        const client = new MediaGen.MediaGenClient({ apiKey: ${JSON.stringify(KEY)}, baseUrl: ${JSON.stringify(emu.url)} });
        const ledger = MediaGen.createGenerationLedger({ client, store: new MediaGen.MemoryGenerationStore() });
        const submitted = await ledger.submit('edge-user', { model: 'image-fast', prompt: 'edge' });
        const read = await ledger.get('edge-user', submitted.generation_id);
        return { id: submitted.generation_id, read: read.generation_id, other: await ledger.get('someone', submitted.generation_id) };
      })()`,
      context,
    );
    expect(result.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.read).toBe(result.id);
    expect(result.other).toBeUndefined();
  });
});
