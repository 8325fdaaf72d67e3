import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // The same define as tsup's: tests run the source with the version the build bakes in.
  define: { __MEDIAGEN_VERSION__: JSON.stringify(version) },
  test: { include: ['test/**/*.test.ts'], testTimeout: 20_000 },
});
