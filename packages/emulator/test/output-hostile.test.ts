import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEY, startEmulator } from '../src/index.js';
import { type Emu, emulator, KEY } from './helpers.js';

/**
 * Issue 10 items 12 and 14: links are built on the emulator's own address (never the request's
 * `Host`), and the link router reads numbers in canonical form only (the wire's rules), so one
 * link has exactly one spelling.
 */
let emu: Emu;
let link: string;
let id: string;
beforeAll(async () => {
  emu = await emulator();
  const s = await emu.submit({ model: 'image-fast', prompt: 'harbour', number_results: 2, seed: 3 });
  id = s.body.generation_id;
  link = (await emu.wait(id)).body.output_url;
});
afterAll(() => emu.close());

/** A GET with a chosen `Host` header (fetch does not let a caller set one). */
const getWithHost = (path: string, host: string) =>
  new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const url = new URL(emu.url);
    const req = request({ host: url.hostname, port: url.port, path, headers: { host, authorization: `Bearer ${KEY}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end();
  });

describe('output links on hostile requests', () => {
  it('a request Host header never reaches a link: links name the listening address', async () => {
    for (const host of ['attacker.example', 'attacker.example:80/evil?x=', '127.0.0.1:1']) {
      const r = await getWithHost(`/api/v1/generations/${id}`, host);
      expect(r.status).toBe(200);
      for (const url of r.body.output_urls as string[]) expect(url.startsWith(`${emu.url}/api/v1/output/${id}/`)).toBe(true);
    }
  });

  it('publicUrl: links name the configured address (reachable from elsewhere), and resolve on this server', async () => {
    const exposed = await startEmulator({
      port: 0,
      host: '0.0.0.0',
      publicUrl: 'http://emulator.internal:4010/',
      config: { timeScale: 0.001 },
    });
    try {
      expect(exposed.url).toBe('http://emulator.internal:4010');
      const local = `http://127.0.0.1:${exposed.port}`;
      const headers = { authorization: `Bearer ${DEFAULT_KEY}`, 'content-type': 'application/json' };
      const sent = await (
        await fetch(`${local}/api/v1/generate`, { method: 'POST', headers, body: JSON.stringify({ model: 'image-fast', prompt: 'x' }) })
      ).json();
      let generation: { status: string; output_url: string };
      do generation = await (await fetch(`${local}/api/v1/generations/${sent.generation_id}`, { headers })).json();
      while (generation.status !== 'completed');
      expect(generation.output_url.startsWith(`http://emulator.internal:4010/api/v1/output/${sent.generation_id}/`)).toBe(true);
      const image = await fetch(generation.output_url.replace('http://emulator.internal:4010', local));
      expect(image.status).toBe(200);
    } finally {
      await exposed.close();
    }
    for (const bad of ['ftp://x', 'http://user:pw@x', 'http://x/?q=1', 'not a url']) {
      await expect(startEmulator({ port: 0, publicUrl: bad })).rejects.toThrow(/publicUrl must be/);
    }
  });

  it('non-canonical numbers name no link: a leading 0 on expiry, index 00, 0.0, -0, +0', async () => {
    const [, exp] = /\/output\/[^/]+\/(\d+)\//.exec(link) as RegExpExecArray;
    expect((await emu.fetchRaw(link)).status).toBe(200);
    const variants = [
      link.replace(`/${exp}/`, `/0${exp}/`),
      ...['00', '0.0', '-0', '+0', '0e0', ' 0'].map((i) => link.replace(/\/0\/image-fast-1\.png$/, `/${i}/image-fast-1.png`)),
    ];
    for (const u of variants) {
      const r = await emu.fetchRaw(u);
      expect(r.status, u).toBe(403);
      expect(r.body.error).toBe('LINK_INVALID');
    }
  });

  it('a text segment spelled another way (%69 for i) names no link either', async () => {
    const r = await emu.fetchRaw(link.replace(/image-fast-1\.png$/, '%69mage-fast-1.png'));
    expect(r.status).toBe(403);
    expect((await emu.fetchRaw(link.replace(`/${id}/`, `/${id.replace(/^./, (c) => `%${c.charCodeAt(0).toString(16)}`)}/`))).status).toBe(
      403,
    );
  });

  it('bad percent-encoding in any segment is a 4xx JSON error', async () => {
    const parts = link.split('/');
    for (let i = parts.length - 5; i < parts.length; i++) {
      const u = [...parts.slice(0, i), '%ZZ', ...parts.slice(i + 1)].join('/');
      const r = await emu.fetchRaw(u);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(typeof r.body.error).toBe('string');
    }
  });

  it('any change to a link segment: a 4xx JSON error, never the file and never a 5xx', async () => {
    const base = link.slice(0, link.indexOf('/api/v1/output/') + '/api/v1/output/'.length);
    const segments = link.slice(base.length).split('/');
    const mutant = fc
      .tuple(
        fc.integer({ min: 0, max: 4 }),
        fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('%ZZ', '%', '0', '00', '-0', '0.0', '1', '01', '%30', '%69mage-fast-1.png')),
      )
      .filter(([i, s]) => s !== segments[i] && !s.includes('/') && !s.includes('?') && !s.includes('#'));
    await fc.assert(
      fc.asyncProperty(mutant, async ([i, s]) => {
        const changed = segments.map((seg, j) => (j === i ? encodeURI(s).replace(/%25/g, '%') : seg));
        const r = await emu.fetchRaw(base + changed.join('/'));
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(typeof r.body.error).toBe('string');
      }),
      { numRuns: 150 },
    );
  });
});
