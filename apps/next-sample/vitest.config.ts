import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// `server-only` (lib/mediagen.ts) throws outside React's server layer; Next resolves it to its
// empty module, as done here for the tests that load the app's route files in Node.
const serverOnly = createRequire(import.meta.url).resolve('next/dist/compiled/server-only/empty.js');

// One `next start` (and one emulator) per file, on the one `next build` turbo made before the tests.
export default defineConfig({
  resolve: { alias: { 'server-only': serverOnly } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    // expect.poll waits on its condition as long as the test may run: vitest's default (1 s) is a
    // clock a loaded machine misses.
    expect: { poll: { timeout: 60_000 } },
  },
});
