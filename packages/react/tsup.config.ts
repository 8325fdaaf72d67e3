import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  target: 'es2022',
  // Neutral: browsers only; a `node:` import fails this build.
  platform: 'neutral',
  sourcemap: true,
  // esbuild drops module directives when bundling, and tsup's rollup treeshake drops banners:
  // no treeshake here, and the banner puts 'use client' back as line one (React server
  // components frameworks then treat the hooks as client code).
  treeshake: false,
  banner: { js: "'use client';" },
  external: ['@mediagen/core', 'react'],
});
