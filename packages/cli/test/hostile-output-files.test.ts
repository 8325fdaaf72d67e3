/**
 * `mediagen wait <id>` against a hostile service (a small node:http server): the output links,
 * and the file names the CLI derives from them, are the service's text. Whatever they say,
 * every output ends up in its own file under --out, or the command fails with the right error.
 */

import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers';

const ID = '3f2b7c1e-9a4d-4c6b-8e1f-2a3b4c5d6e7f';
const EXPIRY = 4_102_444_800; // 2100-01-01: never near expiry, so no refresh read.

interface Hostile {
  /** `output_urls` of the completed generation, given the server's base address. */
  links(base: string): unknown;
  /** Answers an output link; default: `content-<index>`. */
  output?(res: ServerResponse, index: string): void;
}

let server: Server | undefined;
const portOf = (s: Server | undefined) => (s?.address() as AddressInfo | null | undefined)?.port;
async function stop(): Promise<void> {
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
}
afterEach(stop);

const link = (base: string, index: number, filename: string) =>
  `${base}/api/v1/output/${ID}/${EXPIRY}/sig/${index}/${encodeURIComponent(filename)}`;

/** A service whose one generation is completed with the given links. */
async function hostile(h: Hostile): Promise<string> {
  server = createServer((req, res) => {
    const base = `http://127.0.0.1:${portOf(server)}`;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_hostile' });
      res.end(JSON.stringify(body));
    };
    const url = req.url ?? '';
    if (url.startsWith('/api/v1/models')) return json(200, { tier: 'pro', credits_balance: 1, models: [], request_id: 'req_hostile' });
    if (url.startsWith(`/api/v1/generations/${ID}`)) {
      const urls = h.links(base);
      const now = new Date().toISOString();
      return json(200, {
        generation_id: ID,
        status: 'completed',
        model: 'image-fast',
        output_url: Array.isArray(urls) ? urls[0] : urls,
        output_urls: urls,
        credits_used: 8,
        duration_ms: 10,
        created_at: now,
        completed_at: now,
        request_id: 'req_hostile',
      });
    }
    if (url.startsWith('/api/v1/output/')) {
      const index = url.split('/')[7] ?? '?';
      if (h.output) return h.output(res, index);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(`content-${index}`);
    }
    json(404, { error: 'NOT_FOUND', message: 'no such route', next: 'none', request_id: 'req_hostile' });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${portOf(server)}`;
}

/** Every file of `dir` with its content, by name. */
async function filesIn(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) out[name] = await readFile(`${dir}/${name}`, 'utf8');
  return out;
}

describe('wait <id>: every output in its own file, whatever the links name', () => {
  it('two outputs whose links carry the same file name: both kept, neither overwritten', async () => {
    const base = await hostile({ links: (b) => [link(b, 0, 'image.png'), link(b, 1, 'image.png')] });
    const out = await tempDir('dup');
    const { code, stdout, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: base });
    expect(code, stderr).toBe(0);
    const files = await filesIn(out);
    expect(Object.values(files).sort()).toEqual(['content-0', 'content-1']);
    // The paths printed are the two distinct files written.
    const printed = stdout.trim().split('\n').slice(0, 2);
    expect(new Set(printed).size).toBe(2);
    for (const path of printed) expect(Object.keys(files)).toContain(path.slice(out.length + 1));
  });

  it('names differing only in case do not collide (a case-insensitive disk, macOS or Windows, would keep one)', async () => {
    const base = await hostile({ links: (b) => [link(b, 0, 'A.png'), link(b, 1, 'a.png')] });
    const out = await tempDir('case');
    const { code, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: base });
    expect(code, stderr).toBe(0);
    const names = Object.keys(await filesIn(out));
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(2);
  });

  it('a file name longer than any file system takes is shortened, keeping its extension; not a "pick a writable directory" failure', async () => {
    const base = await hostile({ links: (b) => [link(b, 0, `${'a'.repeat(400)}.png`)] });
    const out = await tempDir('long');
    const { code, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: base });
    expect(code, stderr).toBe(0);
    const [name] = Object.keys(await filesIn(out));
    expect(name).toMatch(/\.png$/);
    expect(Buffer.byteLength(name ?? '')).toBeLessThanOrEqual(255);
  });

  it('any file names (fast-check): one file per output, each under --out, each name at most 255 bytes', async () => {
    const fc = await import('fast-check');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('x.png', 'X.PNG', '..', '.', '.part', 'a/../../b')), {
          minLength: 1,
          maxLength: 4,
        }),
        async (names) => {
          // `.` and `..` cannot be a link segment: a URL parser resolves them (even as %2E) away.
          const safe = names.map((n) => (n === '' || n === '.' || n === '..' ? `${n}x` : n));
          const base = await hostile({ links: (b) => safe.map((n, i) => link(b, i, n)) });
          const out = await tempDir('prop');
          try {
            const { code, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: base });
            expect(code, stderr).toBe(0);
            const files = await filesIn(out);
            expect(Object.values(files).sort()).toEqual(safe.map((_, i) => `content-${i}`).sort());
            for (const name of Object.keys(files)) expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
            expect(new Set(Object.keys(files).map((n) => n.toLowerCase())).size).toBe(safe.length);
          } finally {
            await stop();
          }
        },
      ),
      { numRuns: 8 },
    );
  }, 120_000);
});

describe('wait <id>: an output link answered without a body', () => {
  it('a 204 on an output link is written as the (empty) output, not blamed on --out', async () => {
    const base = await hostile({
      links: (b) => [link(b, 0, 'x.png')],
      output: (res) => {
        res.writeHead(204);
        res.end();
      },
    });
    const out = await tempDir('204');
    const { code, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: base });
    expect(stderr).not.toMatch(/writable directory/);
    expect(code, stderr).toBe(0);
    expect(Object.values(await filesIn(out))).toEqual(['']);
  });
});

describe('wait <id>: output_urls of the wrong shape', () => {
  it('a string instead of an array is one link, not one download per character', async () => {
    const base = await hostile({ links: (b) => link(b, 0, 'one.png') });
    const out = await tempDir('str');
    const { code, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: base });
    expect(code, stderr).toBe(0);
    expect(Object.values(await filesIn(out))).toEqual(['content-0']);
  });
});
