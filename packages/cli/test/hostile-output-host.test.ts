/**
 * Output links are fetched only on the service's own address (issue 30, finding 7): the contract
 * serves signed links from `{base_url}` under `/api/v1/output/`. A service (or a forged answer)
 * naming another host, here a second local server on another port, must not make `mediagen wait`
 * fetch it: the command fails with a typed error and that host sees no request. The check itself
 * is core's (`client.generations.download`); this is the CLI's side of it.
 */
import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { runCli, tempDir } from './helpers';

const ID = '1f2e3d4c-5b6a-4978-8a6b-5c4d3e2f1a0b';
const EXPIRY = 4_102_444_800; // 2100-01-01: never near expiry, so no refresh read.

let service: Server;
let foreign: Server;
let serviceBase: string;
let foreignBase: string;
/** Every request the foreign host received. */
const foreignRequests: string[] = [];

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  foreign = createServer((req, res) => {
    foreignRequests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end('internal secret');
  });
  foreignBase = await listen(foreign);
  service = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = req.url ?? '';
    if (url.startsWith('/api/v1/models')) return json(200, { tier: 'pro', credits_balance: 1, models: [], request_id: 'req_h' });
    if (url.startsWith(`/api/v1/generations/${ID}`)) {
      // The contract's link shape, on the other server's origin.
      const link = `${foreignBase}/api/v1/output/${ID}/${EXPIRY}/sig/0/image.png`;
      const now = new Date().toISOString();
      return json(200, {
        generation_id: ID,
        status: 'completed',
        model: 'image-fast',
        output_url: link,
        output_urls: [link],
        credits_used: 4,
        duration_ms: 10,
        created_at: now,
        completed_at: now,
        request_id: 'req_h',
      });
    }
    json(404, { error: 'NOT_FOUND', message: 'no such route', next: 'none', request_id: 'req_h' });
  });
  serviceBase = await listen(service);
});
afterAll(async () => {
  for (const server of [service, foreign]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('wait <id>: an output link on another host', () => {
  it('is not fetched; the command fails with a typed error, not a write failure, and writes no file', async () => {
    const out = await tempDir('foreign');
    const { code, stdout, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: serviceBase });
    expect(foreignRequests).toEqual([]);
    expect(code, stderr).not.toBe(EXIT.ok);
    // A MediaGenError of core's, reported as one: not "pick a writable directory" (9), not a CLI bug (70).
    expect(code, stderr).not.toBe(EXIT.output);
    expect(code, stderr).not.toBe(EXIT.internal);
    expect(stderr).toMatch(/^error .+ \([A-Z][A-Z_]+\)/m);
    expect(stderr).not.toContain('internal secret');
    expect(stdout).toBe('');
    expect(await readdir(out)).toEqual([]);
  });
});
