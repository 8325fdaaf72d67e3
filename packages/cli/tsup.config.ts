import { defineConfig } from 'tsup';

// A bin, not a library: one ESM file with a shebang, no declarations.
export default defineConfig({
  entry: ['src/bin.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
});
