import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts s3rver (behind a strict SigV4 front) as its own process unless S3_URL names a bucket's server.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
  },
});
