import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, DEFAULT_BASE_URL, MediaGenClient } from '../src/index';

afterEach(() => vi.unstubAllEnvs());

describe('the local emulator default is not used in production', () => {
  it('NODE_ENV=production with no baseUrl and no MEDIAGEN_BASE_URL fails at construction, naming the variable', () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    let error: unknown;
    try {
      new MediaGenClient({ apiKey: 'svc_live_prod' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('MEDIAGEN_BASE_URL');
  });

  it('in production an explicit address is used: baseUrl or MEDIAGEN_BASE_URL', () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    expect(new MediaGenClient({ apiKey: 'k', baseUrl: 'https://api.example.test' }).baseUrl).toBe('https://api.example.test');
    vi.stubEnv('MEDIAGEN_BASE_URL', 'https://env.example.test');
    expect(new MediaGenClient({ apiKey: 'k' }).baseUrl).toBe('https://env.example.test');
  });

  it('everywhere else (any other NODE_ENV, or none) the emulator stays the default', () => {
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.constantFrom('development', 'test', '')).filter((v) => v.trim() !== 'production'),
        (nodeEnv) => {
          vi.stubEnv('NODE_ENV', nodeEnv);
          expect(new MediaGenClient({ apiKey: 'k' }).baseUrl).toBe(DEFAULT_BASE_URL);
        },
      ),
      { numRuns: 100 },
    );
  });
});
