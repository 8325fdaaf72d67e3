import { createRequire } from 'node:module';
import { DiscoveryService } from '@nestjs/core';
import { describe, expect, it } from 'vitest';

describe('this run', () => {
  it('resolves @nestjs/* to NestJS 11, for the tests and the package source alike', async () => {
    // The alias sends `@nestjs/core` to this project's copy; its package.json says which major that is.
    const version = (await import('@nestjs/core/package.json', { with: { type: 'json' } })).default.version as string;
    expect(version).toMatch(/^11\./);
    const fromHere = createRequire(import.meta.url)('@nestjs/core') as { DiscoveryService: unknown };
    expect(DiscoveryService).toBe(fromHere.DiscoveryService);
  });
});
