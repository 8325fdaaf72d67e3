import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

// package.json is the one source of the version; the User-Agent reads it from here at build time.
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/wire.ts',
    'src/server.ts',
    'src/node.ts',
    'src/testing.ts',
    'src/ledger.ts',
    'src/standard-schema.ts',
    'src/internal.ts',
  ],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0', stripInternal: true } },
  define: { __MEDIAGEN_VERSION__: JSON.stringify(version) },
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
  treeshake: true,
});
