import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../../scripts/demo.mjs', import.meta.url));

// `pnpm demo --smoke` is the root `demo` script's build (turbo, cached here: this test runs after
// the studio's build) followed by this script; CI runs it through this test.
describe('pnpm demo --smoke', () => {
  it('starts the emulator and the studio wired together, gets one image by webhook, prints it, exits 0', async () => {
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, [DEMO, '--smoke'], { timeout: 90_000 }, (error, out) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out }),
      );
      child.stderr?.pipe(process.stderr);
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/completed via webhook \(delivery delivered, HTTP 200\)/);
    expect(stdout).toMatch(/output URL\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1\/output\/[0-9a-f-]{36}\/\d+\/[\w-]+\/0\/image-fast-1\.png/);
    expect(stdout).toMatch(/credits charged\s+4\b/);
  });
});
