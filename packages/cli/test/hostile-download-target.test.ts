/**
 * `--out` may be a shared folder (/tmp) where someone else can plant files. The CLI writes each
 * output under a temporary name first; that name must not be one an attacker can predict and
 * pre-create as a symlink (`<out>/<id>-<name>.part` -> the victim's file), or the download is
 * written through the link into a file outside --out. The generation id is public enough
 * (`mediagen wait <id>` shows it in `ps`), and the file name comes from the link.
 */
import { lstat, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers';

const ID = '7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const EXPIRY = 4_102_444_800; // 2100-01-01: never near expiry.

let server: Server | undefined;
afterEach(async () => {
  const s = server;
  server = undefined;
  s?.closeAllConnections();
  if (s) await new Promise((resolve) => s.close(resolve));
});

/** A service whose one generation is completed with one output, `image.png`, holding `bytes`. */
async function service(bytes: string): Promise<string> {
  const s = createServer((req, res) => {
    const base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_t' });
      res.end(JSON.stringify(body));
    };
    const url = req.url ?? '';
    if (url.startsWith('/api/v1/models')) return json(200, { tier: 'pro', credits_balance: 1, models: [], request_id: 'req_t' });
    if (url.startsWith(`/api/v1/generations/${ID}`)) {
      const link = `${base}/api/v1/output/${ID}/${EXPIRY}/sig/0/image.png`;
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
        request_id: 'req_t',
      });
    }
    if (url.startsWith('/api/v1/output/')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(bytes);
    }
    json(404, { error: 'NOT_FOUND', message: 'no such route', next: 'none', request_id: 'req_t' });
  });
  server = s;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

describe('wait <id> --out <shared folder>', () => {
  it('a symlink planted at the temporary name is not followed: the file it points to is untouched', async () => {
    const base = await service('the generated image');
    const out = await tempDir('shared');
    const victim = join(await tempDir('victim'), 'bashrc');
    await writeFile(victim, 'export PATH=/usr/bin\n');
    await symlink(victim, join(out, `${ID}-image.png.part`));

    const { code, stdout, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: base });
    expect(code, stderr).toBe(0);
    expect(await readFile(victim, 'utf8')).toBe('export PATH=/usr/bin\n');
    const written = join(out, `${ID}-image.png`);
    expect(stdout.split('\n')[0]).toBe(written);
    expect((await lstat(written)).isFile()).toBe(true);
    expect(await readFile(written, 'utf8')).toBe('the generated image');
    // The planted link is left as it was (not the CLI's to remove), and no temporary file stays.
    expect((await readdir(out)).sort()).toEqual([`${ID}-image.png`, `${ID}-image.png.part`]);
  });

  it('a symlink planted at the final name is replaced, not written through', async () => {
    const base = await service('the generated image');
    const out = await tempDir('shared-final');
    const victim = join(await tempDir('victim-final'), 'notes.txt');
    await writeFile(victim, 'mine');
    await symlink(victim, join(out, `${ID}-image.png`));

    const { code, stderr } = await runCli(['wait', ID, '--out', out], { baseUrl: base });
    expect(code, stderr).toBe(0);
    expect(await readFile(victim, 'utf8')).toBe('mine');
    expect((await lstat(join(out, `${ID}-image.png`))).isFile()).toBe(true);
  });
});
