import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, MediaGenClient, SDK_VERSION } from '../src/index';
import { errorBody, json, startScriptedServer } from './support/scripted-server';

const KEY = 'svc_live_logtest_0123456789abcdef';
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const server = await startScriptedServer((req, res, i) => {
  if (req.path === '/api/v1/credits' && i % 2 === 0) return json(res, 500, errorBody('INTERNAL_ERROR'), { 'retry-after': '0' });
  return json(res, 200, { balance: 5, request_id: 'req_ok' });
});
afterAll(() => server.close());

function capture() {
  const lines: Array<[string, string]> = [];
  const logger = {
    debug: (m: string) => lines.push(['debug', m]),
    info: (m: string) => lines.push(['info', m]),
    warn: (m: string) => lines.push(['warn', m]),
    error: (m: string) => lines.push(['error', m]),
  };
  return { lines, logger };
}

describe('User-Agent', () => {
  it('names the SDK, its package.json version and the runtime on every request', async () => {
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: server.url, maxRetries: 1 });
    await client.credits.get();
    await client.generations.create({ model: 'image-fast', prompt: 'x' }, { maxRetries: 0 }).catch(() => {});
    expect(SDK_VERSION).toBe(version);
    const agents = server.requests.map((r) => r.headers['user-agent']);
    expect(agents.length).toBeGreaterThanOrEqual(3);
    for (const agent of agents) expect(agent).toBe(`mediagen-core/${version} node/${process.versions.node}`);
  });
});

describe('request log', () => {
  it('at debug: each request, response and retry, with method, path, status, request id, attempt and wait; no key', async () => {
    const { lines, logger } = capture();
    server.requests.length = 0;
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: server.url, logLevel: 'debug', logger, maxRetries: 2 });
    await client.credits.get();
    const text = lines.map(([level, m]) => `${level} ${m}`).join('\n');
    expect(text).toMatch(/debug \[mediagen\] GET \/api\/v1\/credits attempt 1/);
    expect(text).toMatch(/debug \[mediagen\] GET \/api\/v1\/credits 500 req_\w+ \d+ ms: INTERNAL_ERROR/);
    expect(text).toMatch(/info \[mediagen\] GET \/api\/v1\/credits INTERNAL_ERROR: retry 1 in 0 ms/);
    expect(text).toMatch(/debug \[mediagen\] GET \/api\/v1\/credits attempt 2/);
    expect(text).toMatch(/debug \[mediagen\] GET \/api\/v1\/credits 200 req_ok \d+ ms/);
    expect(text).not.toContain(KEY);
  });

  it('at info: only retries; off (the default): nothing, and the logger is never called', async () => {
    const info = capture();
    await new MediaGenClient({ apiKey: KEY, baseUrl: server.url, logLevel: 'info', logger: info.logger }).credits.get();
    expect(info.lines.map(([level]) => level)).toEqual(['info']);
    const off = capture();
    await new MediaGenClient({ apiKey: KEY, baseUrl: server.url, logger: off.logger }).credits.get();
    await new MediaGenClient({ apiKey: KEY, baseUrl: server.url, logLevel: 'off', logger: off.logger }).credits.get();
    expect(off.lines).toEqual([]);
  });

  it('MEDIAGEN_LOG=debug turns it on; a bad level is a ConfigurationError', async () => {
    const { lines, logger } = capture();
    process.env.MEDIAGEN_LOG = 'debug';
    try {
      await new MediaGenClient({ apiKey: KEY, baseUrl: server.url, logger }).credits.get();
    } finally {
      delete process.env.MEDIAGEN_LOG;
    }
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(() => new MediaGenClient({ apiKey: KEY, baseUrl: server.url, logLevel: 'loud' as never })).toThrow(ConfigurationError);
  });

  it('a logger with only some methods is fine', async () => {
    const seen: string[] = [];
    await new MediaGenClient({ apiKey: KEY, baseUrl: server.url, logLevel: 'debug', logger: { info: (m) => seen.push(m) } }).credits.get();
    expect(seen.every((m) => m.includes('retry'))).toBe(true);
  });
});
