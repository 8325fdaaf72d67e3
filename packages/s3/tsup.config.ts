import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
});
