import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // expect.poll waits on its condition as long as the test may run: vitest's default (1 s) is a
    // clock a loaded machine misses.
    expect: { poll: { timeout: 20_000 } },
    // Most tests boot the module without a service (`forRoot({ apiKey })`): an address, so they
    // also pass under NODE_ENV=production, where core refuses the implicit emulator default. A
    // closed port: a request nobody meant to send fails at once. Tests that talk to an emulator
    // pass its baseUrl.
    env: { MEDIAGEN_BASE_URL: 'http://127.0.0.1:9' },
  },
});
