import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Typechecks a tiny consumer against the built `dist/*.d.ts` with `types: []` (no
 * `@types/node`), the way a user of `startEmulator` in a browser-typed or edge project
 * compiles. `skipLibCheck: false` so the package's own declarations are checked too.
 */
function typecheckConsumer(source: string, moduleResolution: 'bundler' | 'node16'): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'emu-consumer-'));
  try {
    mkdirSync(join(dir, 'node_modules', '@mediagen'), { recursive: true });
    symlinkSync(pkgDir, join(dir, 'node_modules', '@mediagen', 'emulator'), 'dir');
    const file = join(dir, moduleResolution === 'node16' ? 'index.mts' : 'index.ts');
    writeFileSync(file, source);
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      target: ts.ScriptTarget.ES2022,
      ...(moduleResolution === 'node16'
        ? { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 }
        : { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }),
    };
    const program = ts.createProgram([file], options);
    return ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const consumer = `
import { createEmulator, startEmulator, resolveConfig, type EmulatorConfig } from '@mediagen/emulator';
import { mediagenHandlers } from '@mediagen/emulator/msw';
const config: EmulatorConfig = { timeScale: 0.01 };
export async function main(): Promise<string> {
  const emu = await startEmulator({ port: 0, config });
  resolveConfig(config, { MEDIAGEN_WEBHOOK_URL: undefined });
  await emu.close();
  const inProcess = createEmulator({ config, webhookFetch: async (request: Request) => new Response(await request.text()) });
  const res: Response = await inProcess.fetch(inProcess.url + '/api/v1/models');
  await inProcess.faults.add({ endpoint: 'generate', status: 500 });
  await inProcess.clock.advance(1000);
  const handlers: unknown[] = mediagenHandlers(inProcess);
  await inProcess.close();
  return emu.url + res.status + handlers.length;
}
`;

// A whole TypeScript program per case: seconds alone, much longer on a loaded 2-core machine.
describe('published types', { timeout: 120_000 }, () => {
  it.each(['bundler', 'node16'] as const)('a consumer without @types/node typechecks (%s resolution)', (resolution) => {
    expect(typecheckConsumer(consumer, resolution)).toEqual([]);
  });

  it('the check can fail: a type error in the consumer is reported', () => {
    const errors = typecheckConsumer(`import { startEmulator } from '@mediagen/emulator';\nstartEmulator({ port: 'x' });\n`, 'bundler');
    expect(errors.length).toBeGreaterThan(0);
  });
});
