import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

// package.json is the one source of the version the server reports to clients.
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
const define = { __MEDIAGEN_MCP_VERSION__: JSON.stringify(version) };

// The library (ESM + CJS with types) and the bin (one ESM file with a shebang, no declarations).
export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
    define,
    target: 'es2022',
    platform: 'node',
    sourcemap: true,
    clean: true,
  },
  {
    entry: ['src/bin.ts'],
    format: ['esm'],
    define,
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
