import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const APP = fileURLToPath(new URL('../', import.meta.url));

// `next build` evaluates every route module to collect page data. A route that opened the
// SQLite store at module load would create and open the database during the build (in CI, on
// a build machine, in a Docker layer). The store opens on first use instead; this proves it.
describe('next build', () => {
  it('never creates or opens the database (the store opens on the first request, not at module load)', async () => {
    if (!existsSync(join(APP, '.next', 'BUILD_ID')))
      throw new Error('The studio is not built: run `pnpm turbo run test --filter=next-sample` (it builds first).');
    const scratch = mkdtempSync(join(tmpdir(), 'next-sample-build-'));
    const dataDir = join(scratch, 'data');
    try {
      // Next's own build steps after compiling (collect page data, which evaluates every route
      // module, and prerender) on the build turbo made before the tests: a few seconds, where
      // a full `next build` would compile everything again.
      const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(APP, 'node_modules/next/dist/bin/next'), 'build', '--experimental-build-mode=generate'],
          {
            cwd: APP,
            timeout: 100_000,
            env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', MEDIAGEN_SAMPLE_DB: join(dataDir, 'generations.db') },
          },
          (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
        );
      });
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/Collecting page data/);
      expect(result.output).toMatch(/\/api\/\[\.\.\.mediagen\]/);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 120_000);
});
