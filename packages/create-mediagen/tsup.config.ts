import { defineConfig } from 'tsup';

// A bin, not a library: one ESM file with a shebang, no declarations. The templates are added
// to dist/templates by scripts/bundle-templates.mjs after this build.
export default defineConfig({
  entry: ['src/cli.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
});
