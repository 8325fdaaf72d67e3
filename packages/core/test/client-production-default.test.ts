import { createEmulator } from '@mediagen/emulator';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, DEFAULT_BASE_URL, MediaGenClient } from '../src/index';
import { EMULATOR_API_KEY } from '../src/wire';

afterEach(() => vi.unstubAllEnvs());

/** A fetch that records what would have gone out, and answers nothing. */
function recordingFetch() {
  const sent: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    sent.push(String(input));
    return new Response('{}', { status: 500 });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

/** Every kind of call a client makes: each must fail the same way when a setting is missing. */
const calls = (client: MediaGenClient) => [
  () => client.models.list(),
  () => client.credits.get(),
  () => client.generations.create({ model: 'image-fast', prompt: 'a lighthouse' }, { idempotencyKey: 'k-1' }),
  () => client.generations.get('gen_1'),
];

describe('a missing setting fails each request, not the constructor (a build loads the module with no secrets)', () => {
  it('NODE_ENV=production with no address: constructed, then every call refused naming MEDIAGEN_BASE_URL, nothing sent', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    const { fetch, sent } = recordingFetch();
    const client = new MediaGenClient({ fetch });
    for (const call of calls(client)) {
      const error = await call().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toContain('MEDIAGEN_BASE_URL');
    }
    // A download is refused too (no address: no link is the service's), before anything is fetched.
    const link = { generation_id: 'gen_1', status: 'completed', output_url: 'https://api.example.test/api/v1/output/x' };
    await expect(client.generations.download(link as never)).rejects.toThrow(ConfigurationError);
    expect(sent).toEqual([]);
  });

  it('a key missing where no emulator is the target: every call refused naming MEDIAGEN_API_KEY, nothing sent', async () => {
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    fc.assert(
      fc.property(fc.constantFrom('production', 'development', 'test', ''), (nodeEnv) => {
        vi.stubEnv('NODE_ENV', nodeEnv);
        expect(() => new MediaGenClient({ baseUrl: 'https://api.example.test' })).not.toThrow();
      }),
    );
    const { fetch, sent } = recordingFetch();
    const client = new MediaGenClient({ baseUrl: 'https://api.example.test', fetch });
    for (const call of calls(client)) await expect(call()).rejects.toThrow(/MEDIAGEN_API_KEY/);
    expect(sent).toEqual([]);
  });

  it('a malformed setting is still refused at construction (it was given, and is wrong)', () => {
    expect(() => new MediaGenClient({ apiKey: 'svc live\nkey', baseUrl: 'https://api.example.test' })).toThrow(ConfigurationError);
    expect(() => new MediaGenClient({ apiKey: 'k', baseUrl: 'ftp://x' })).toThrow(ConfigurationError);
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

describe('development with no settings at all runs against the local emulator', () => {
  const emu = createEmulator({ config: { timeScale: 0.001 } });
  afterAll(() => emu.close());

  it("no key, no address: the emulator's demo key at its default address, and a generation completes", async () => {
    vi.stubEnv('NODE_ENV', 'development');
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    const keys: (string | null)[] = [];
    // The emulator listens on a free port here, not 4010: the address is rewritten, the key is not.
    const client = new MediaGenClient({
      fetch: (input, init) => {
        keys.push(new Headers(init?.headers).get('authorization'));
        return emu.fetch(String(input).replace(DEFAULT_BASE_URL, emu.url), init);
      },
    });
    expect(client.baseUrl).toBe(DEFAULT_BASE_URL);
    const done = await client.generations.run({ model: 'image-fast', prompt: 'a lighthouse' });
    expect(done.status).toBe('completed');
    expect(new Set(keys)).toEqual(new Set([`Bearer ${EMULATOR_API_KEY}`]));
  });

  it('the demo key is never used for any other address', async () => {
    vi.stubEnv('NODE_ENV', 'development');
    vi.stubEnv('MEDIAGEN_API_KEY', '');
    await fc.assert(
      fc.asyncProperty(fc.webUrl({ validSchemes: ['http', 'https'] }), async (url) => {
        fc.pre(url.replace(/\/+$/, '') !== DEFAULT_BASE_URL);
        const { fetch, sent } = recordingFetch();
        let thrown: unknown;
        try {
          await new MediaGenClient({ baseUrl: url, fetch }).credits.get();
        } catch (caught) {
          thrown = caught;
        }
        // Either the URL is refused at construction (credentials in it) or the call is refused: never sent with the demo key.
        expect(sent).toEqual([]);
        return thrown !== undefined;
      }),
      { numRuns: 50 },
    );
  });
});
