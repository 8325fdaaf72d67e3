import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  // Web-standard: the same build runs on Node, Bun, Deno and Workers.
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
  external: ['hono'],
});
