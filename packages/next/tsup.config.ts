import { defineConfig, type Options } from 'tsup';

const shared: Options = {
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  target: 'es2022',
  // Neutral: the route handlers run on Web-only runtimes too; a `node:` import fails this build.
  platform: 'neutral',
  sourcemap: true,
  treeshake: true,
  external: ['@mediagen/core', '@mediagen/react', 'next', 'react', 'server-only'],
};

export default defineConfig([
  { ...shared, entry: ['src/index.ts', 'src/server.ts'] },
  // esbuild drops module directives when bundling, and tsup's rollup treeshake drops banners:
  // no treeshake here, and the banner puts 'use client' back as line one.
  // Built as `dist/hooks.*`, not `dist/client.*`: Next 14 takes any path matching
  // `next/dist/client` (here `@mediagen/next/dist/client.js`) for its own code and compiles it to
  // CommonJS inside an ES module, which leaves the hooks undefined in the app.
  { ...shared, entry: { hooks: 'src/client.ts' }, treeshake: false, banner: { js: "'use client';" } },
]);
