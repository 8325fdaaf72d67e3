import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  target: 'node20',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
  external: ['@ai-sdk/provider', '@mediagen/core'],
});
