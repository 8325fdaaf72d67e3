/**
 * `generations.download` fetches only links on the service's address (spec: signed links are
 * served from `{base_url}`): same origin as `baseUrl` and under its `/api/v1/output/`. A link
 * anywhere else (another host, an internal address a forged webhook or a compromised service
 * names) is refused, typed, before any request. Transport edge cases are checked with a fetch
 * that records calls; the end-to-end case runs two real servers.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, type Generation, MediaGenClient } from '../src/index';
import { generationBody, json, startScriptedServer } from './support/scripted-server';

const TAIL = 'g1/4102444800/c2ln/0/a.png';

/** A client on `baseUrl` whose fetch records every URL and answers 200 `ok`. */
function recorded(baseUrl: string) {
  const calls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    calls.push(input instanceof Request ? input.url : String(input));
    return new Response('ok');
  };
  return { calls, client: new MediaGenClient({ apiKey: 'svc_live_foreign_links', baseUrl, fetch, maxRetries: 0 }) };
}

const completed = (url: string): Generation =>
  ({ generation_id: 'g1', status: 'completed', output_url: url, output_urls: [url] }) as Generation;

/**
 * The rule, stated independently of the implementation (which compares `href` prefixes): the
 * link, resolved against baseUrl, has baseUrl's scheme and host (port included), no userinfo,
 * and a path under baseUrl's path + `/api/v1/output/`.
 */
function onService(link: string, baseUrl: string): boolean {
  const base = new URL(baseUrl);
  let url: URL;
  try {
    url = new URL(link, baseUrl.replace(/\/+$/, ''));
  } catch {
    return false;
  }
  const prefix = `${base.pathname.replace(/\/+$/, '')}/api/v1/output/`;
  return url.protocol === base.protocol && url.host === base.host && !url.username && !url.password && url.pathname.startsWith(prefix);
}

/**
 * Downloads `link` and says whether a request went out. `refreshMarginMs: -Infinity` keeps a
 * link whose generated path happens to look expired from being re-read first: only the link's
 * own fetch is under test here.
 */
async function attempt(baseUrl: string, link: string) {
  const { calls, client } = recorded(baseUrl);
  const outcome = await client.generations.download(completed(link), { refreshMarginMs: Number.NEGATIVE_INFINITY }).then(
    (bytes) => ({ bytes }),
    (error: unknown) => ({ error }),
  );
  return { calls, outcome };
}

describe('download: only links on the service address', () => {
  const base = 'http://127.0.0.1:4010';
  const proxied = 'https://proxy.example/mediagen/';

  it.each([
    [base, `${base}/api/v1/output/${TAIL}`, true],
    [base, `HTTP://127.0.0.1:4010/api/v1/output/${TAIL}`, true],
    [base, `/api/v1/output/${TAIL}`, true],
    [base, `http://2130706433:4010/api/v1/output/${TAIL}`, true], // 127.0.0.1 written as one number
    [base, `http://127.0.0.1:4010@evil.example/api/v1/output/${TAIL}`, false],
    [base, `http://evil.example/api/v1/output/${TAIL}`, false],
    [base, `http://169.254.169.254/api/v1/output/${TAIL}`, false],
    [base, `http://127.0.0.1:4011/api/v1/output/${TAIL}`, false],
    [base, `https://127.0.0.1:4010/api/v1/output/${TAIL}`, false],
    [base, `http://127.0.0.1:4010\\@evil.example/api/v1/output/${TAIL}`, false],
    [base, `http://user:pw@127.0.0.1:4010/api/v1/output/${TAIL}`, false],
    [base, 'http://127.0.0.1:4010/api/v1/output/../../internal', false],
    [base, 'http://127.0.0.1:4010/api/v1/output/%2e%2e/%2E%2e/admin', false],
    [base, `http://127.0.0.1:4010/api/v1/outputs/${TAIL}`, false],
    [base, `http://127.0.0.1:4010/API/v1/output/${TAIL}`, false],
    [base, `blob:http://127.0.0.1:4010/api/v1/output/${TAIL}`, false],
    [base, `//evil.example/api/v1/output/${TAIL}`, false],
    [base, 'javascript:alert(1)', false],
    [base, 'http://[', false],
    [proxied, `https://proxy.example/mediagen/api/v1/output/${TAIL}`, true],
    [proxied, `https://PROXY.example:443/mediagen/api/v1/output/${TAIL}`, true],
    [proxied, `https://proxy.example/x/../mediagen/api/v1/output/${TAIL}`, true],
    [proxied, `https://proxy.example/api/v1/output/${TAIL}`, false],
    [proxied, `https://proxy.example/mediagen2/api/v1/output/${TAIL}`, false],
    [proxied, `https://proxy.example/mediagen/../api/v1/output/${TAIL}`, false],
    [proxied, `https://proxy.example/mediagen%2fapi/v1/output/${TAIL}`, false],
    [proxied, `http://proxy.example/mediagen/api/v1/output/${TAIL}`, false],
  ])('base %s, link %s: fetched %s', async (baseUrl, link, fetched) => {
    expect(onService(link, baseUrl)).toBe(fetched);
    const { calls, outcome } = await attempt(baseUrl, link);
    if (fetched) {
      expect(calls).toEqual([new URL(link, baseUrl.replace(/\/+$/, '')).href]);
      expect(outcome).toHaveProperty('bytes');
    } else {
      expect(calls).toEqual([]);
      const error = (outcome as { error: unknown }).error;
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).message).toBe("Output link not on the service's address.");
    }
  });

  it('property: a request goes out exactly when the link is on the base origin, under the output prefix', async () => {
    const bases = fc.constantFrom(
      'http://127.0.0.1:4010',
      'https://proxy.example/mediagen',
      'https://proxy.example/mediagen/',
      'HTTP://LocalHost:80/Pre',
    );
    const scheme = fc.constantFrom('http:', 'https:', 'HTTP:', 'Https:', 'ftp:', 'blob:http:', 'file:', 'data:', '');
    const separator = fc.constantFrom('//', '\\\\', '/\\', '///', '');
    const userinfo = fc.constantFrom('', 'u@', 'u:p@', '127.0.0.1:4010@', 'proxy.example@', '%40@', ':@');
    const host = fc.oneof(
      fc.constantFrom(
        '127.0.0.1',
        '127.1',
        '2130706433',
        '0x7f.1',
        'localhost',
        'LocalHost',
        'proxy.example',
        'PROXY.example',
        'proxy.example.',
      ),
      fc.constantFrom('evil.example', '[::1]', '169.254.169.254', 'proxy.example.evil', 'prox%79.example'),
      fc.domain(),
    );
    const port = fc.constantFrom('', ':80', ':443', ':4010', ':04010', ':4011', ':');
    const path = fc.constantFrom(
      '/api/v1/output/',
      '/mediagen/api/v1/output/',
      '/Pre/api/v1/output/',
      '/pre/api/v1/output/',
      '/mediagen/api/v1/output',
      '/mediagen/../api/v1/output/',
      '/x/../mediagen/api/v1/output/',
      '/%2e%2e/mediagen/api/v1/output/',
      '/mediagen/api/v1/%2E%2e/output/',
      '/mediagen/api/v1/output/%2e%2e/',
      '\\mediagen\\api\\v1\\output\\',
      '/mediagen%2fapi/v1/output/',
      '/mediagen/./api/v1/output/',
      '/api/v1/outputx/',
      '',
      '/',
    );
    const segment = fc.oneof(fc.webSegment(), fc.constantFrom('..', '.', '%2e%2e', '%2F', '\\..', '4102444800', '0', '@evil'));
    const tail = fc.array(segment, { maxLength: 6 }).map((s) => s.join('/'));
    const suffix = fc.constantFrom('', '?x=1', '#f', '?next=/../../', '#@evil.example');
    const built = fc.tuple(scheme, separator, userinfo, host, port, path, tail, suffix).map((parts) => parts.join(''));
    // Links close to the base's own: its origin as written other ways, its path prefix or not.
    const near = (baseUrl: string) => {
      const b = new URL(baseUrl);
      const origin = fc.constantFrom(
        b.origin,
        b.origin.toUpperCase(),
        `${b.protocol}//${b.hostname}:${b.port || (b.protocol === 'https:' ? 443 : 80)}`,
        `${b.protocol}\\${b.host}`,
        `${b.protocol}//u@${b.host}`,
        `${b.protocol}//${b.host}@evil.example`,
        `${b.protocol === 'https:' ? 'http:' : 'https:'}//${b.host}`,
      );
      const own = b.pathname.replace(/\/+$/, '');
      const prefix = fc.constantFrom(own, '', `${own}/x/..`, `${own}/..`, `${own}%2f`, own.toUpperCase());
      return fc
        .tuple(origin, prefix, fc.constantFrom('/api/v1/output/', '/api/v1/output', '/api/v1//output/'), tail, suffix)
        .map((p) => p.join(''));
    };
    // '' is no link at all: download reads the status for one instead (test/download.test.ts).
    const cases = bases.chain((baseUrl) =>
      fc.tuple(
        fc.constant(baseUrl),
        fc
          .oneof(
            near(baseUrl),
            near(baseUrl),
            near(baseUrl),
            built,
            fc.webUrl({ withQueryParameters: true, withFragments: true }),
            fc.string(),
          )
          .filter((s) => s !== ''),
      ),
    );

    const seen = { fetched: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(cases, async ([baseUrl, candidate]) => {
        const { calls, outcome } = await attempt(baseUrl, candidate);
        if (onService(candidate, baseUrl)) {
          seen.fetched++;
          expect(calls).toEqual([new URL(candidate, baseUrl.replace(/\/+$/, '')).href]);
          expect(outcome).toHaveProperty('bytes');
        } else {
          seen.refused++;
          expect(calls).toEqual([]);
          expect((outcome as { error: unknown }).error).toBeInstanceOf(ConfigurationError);
        }
      }),
      { numRuns: 2_000 },
    );
    // Both sides of the rule were exercised, not just the easy one.
    expect(seen.fetched).toBeGreaterThan(20);
    expect(seen.refused).toBeGreaterThan(20);
  });
});

describe('download: a foreign link end to end, two real servers', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it("the service's own status read naming another host: refused typed, and the other host never hears of it", async () => {
    const foreign = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('internal secrets');
    });
    closers.push(foreign.close);
    const service = await startScriptedServer((req, res) => {
      if (req.path.startsWith('/api/v1/generations/')) {
        const url = `${foreign.url}/api/v1/output/${TAIL}`;
        return json(res, 200, generationBody('completed', { output_url: url, output_urls: [url] }));
      }
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end('own bytes');
    });
    closers.push(service.close);
    const client = new MediaGenClient({ apiKey: 'svc_live_foreign_links', baseUrl: service.url, maxRetries: 0 });

    // By id (the status read names the foreign link), and as an object carrying it (a webhook's).
    const byId = await client.generations.download('7b0c6f8e-0000-4000-8000-000000000001').catch((e: unknown) => e);
    expect(byId).toBeInstanceOf(ConfigurationError);
    expect(String((byId as Error).message)).not.toContain(foreign.url.split('//')[1]);
    const fromEvent = completed(`${foreign.url}/api/v1/output/${TAIL}`);
    await expect(client.generations.download(fromEvent, { stream: true })).rejects.toBeInstanceOf(ConfigurationError);
    expect(foreign.requests).toHaveLength(0);

    // The service's own link still downloads.
    const own = completed(`${service.url}/api/v1/output/${TAIL}`);
    expect(new TextDecoder().decode(await client.generations.download(own))).toBe('own bytes');
  });
});
