import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Most tests boot the module without a service (`forRoot({ apiKey })`): an address, so they
    // also pass under NODE_ENV=production, where core refuses the implicit emulator default. A
    // closed port: a request nobody meant to send fails at once. Tests that talk to an emulator
    // pass its baseUrl.
    env: { MEDIAGEN_BASE_URL: 'http://127.0.0.1:9' },
  },
});
