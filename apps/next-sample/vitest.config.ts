import { defineConfig } from 'vitest/config';

// One `next start` (and one emulator) per file, on the one `next build` turbo made before the tests.
export default defineConfig({
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
