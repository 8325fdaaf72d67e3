import { defineConfig } from 'vitest/config';

// Each check installs real npm projects and starts real servers: minutes, not milliseconds.
// Two files at a time: the machine has two cores and the installs mostly wait on the network.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./src/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 300_000,
    maxWorkers: 2,
  },
});
