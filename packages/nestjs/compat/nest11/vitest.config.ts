import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The package's own tests and source, with every `@nestjs/*` import (theirs and the tests')
 * sent to this project's NestJS 11: one suite, proven on both majors.
 */
const here = (path: string) => realpathSync(fileURLToPath(new URL(path, import.meta.url)));
const nest = ['common', 'core', 'testing', 'platform-express', 'platform-fastify'];

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: {
    alias: nest.map((name) => ({ find: new RegExp(`^@nestjs/${name}(?=/|$)`), replacement: here(`./node_modules/@nestjs/${name}`) })),
  },
  test: {
    include: ['test/**/*.test.ts', 'compat/nest11/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    name: 'nestjs on NestJS 11',
  },
});
