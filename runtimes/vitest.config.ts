import { defineConfig } from 'vitest/config';

// The matrix starts real runtimes, an emulator per cell and a `next build`: minutes on a loaded
// two-core machine, so the deadlines are hang guards, not measures.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 900_000 },
});
