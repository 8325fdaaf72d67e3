import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // expect.poll waits on its condition as long as the test may run: vitest's default (1 s) is a
    // clock a loaded machine misses.
    expect: { poll: { timeout: 30_000 } },
  },
});
