import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  // Nest's injection by type needs `design:paramtypes`: tsup keeps it only when it compiles with
  // swc (`@swc/core` installed) and the tsconfig asks for `emitDecoratorMetadata`.
  tsconfig: 'tsconfig.json',
  external: [/^@nestjs\//, 'reflect-metadata', 'rxjs'],
});
