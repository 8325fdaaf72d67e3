import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `server-only` throws outside React's server bundle layer; Next resolves it (condition
// `react-server`) to its empty module, as done here for tests that run the server entry in Node.
const serverOnly = fileURLToPath(new URL('./node_modules/server-only/empty.js', import.meta.url));
// `next/headers` reads Next's request scope, which only a running Next server has: the tests
// give actions their request headers through a stand-in (test/support/next-headers.ts).
const nextHeaders = fileURLToPath(new URL('./test/support/next-headers.ts', import.meta.url));
const next14Navigation = fileURLToPath(new URL('./test/support/next14-navigation.ts', import.meta.url));

export default defineConfig({
  test: {
    testTimeout: 20_000,
    // expect.poll waits on its condition as long as the test may run: vitest's default (1 s) is a
    // clock a loaded machine misses.
    expect: { poll: { timeout: 20_000 } },
    projects: [
      {
        extends: true,
        resolve: { alias: { 'server-only': serverOnly, 'next/headers': nextHeaders } },
        test: { name: 'next16', include: ['test/**/*.test.ts'] },
      },
      {
        // The same server actions with Next 15's `next/navigation` (redirect, notFound, unstable_rethrow).
        extends: true,
        resolve: { alias: { 'server-only': serverOnly, 'next/headers': nextHeaders, 'next/navigation': 'next15/navigation' } },
        test: { name: 'next15', include: ['test/actions.test.ts'] },
      },
      {
        // And with Next 14's, which has no `unstable_rethrow` (the actions test the digests instead).
        extends: true,
        resolve: { alias: { 'server-only': serverOnly, 'next/headers': nextHeaders, 'next/navigation': next14Navigation } },
        test: { name: 'next14', include: ['test/actions.test.ts'] },
      },
    ],
  },
});
