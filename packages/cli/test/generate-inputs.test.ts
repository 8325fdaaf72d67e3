import { spawn } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, expectNoSecrets, KEYS, type RunResult, runCli, tempDir, testConfig } from './helpers';

/**
 * Files as inputs on the command line, against the real emulator (which fetches input links on
 * loopback with allowLoopbackInputs): the CLI keeps them in a FileMediaStore in its cache folder
 * and serves the links itself while the generation runs.
 */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082',
  'hex',
);
const ESC = '\x1b';
let emu: RunningEmulator;
let work: string;
let cache: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, allowLoopbackInputs: true, config: testConfig(0.01) });
  work = await tempDir('inputs');
  cache = join(work, 'cache');
  await writeFile(join(work, 'photo.png'), PNG);
  await writeFile(join(work, 'notes.txt'), 'not an image');
});
afterAll(() => emu?.close());

const run = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { baseUrl: emu.url, cwd: work, env: { XDG_CACHE_HOME: cache, ...env } });
const stored = async () => (await readdir(join(cache, 'mediagen', 'inputs'))).filter((name) => name.startsWith('k-'));

/** The bin with `stdin` piped in (as `… < file` or `cat file | …`). */
function withStdin(args: string[], stdin: (write: NodeJS.WritableStream) => void): Promise<RunResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: work,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MEDIAGEN_BASE_URL: emu.url, MEDIAGEN_API_KEY: KEYS.main, XDG_CACHE_HOME: cache },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => {});
  stdin(child.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('generate with a file as input', () => {
  it('mediagen generate image-upscale --input-image ./photo.png --wait: completed, downloaded, the file kept once', async () => {
    const out = join(work, 'out');
    const first = await run(['generate', 'image-upscale', '--input-image', './photo.png', '--wait', '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/completed [0-9a-f-]{36} in [\d.]+s/);
    expect(await readdir(out)).toHaveLength(1);
    // The resubmit line names the file flag too.
    expect(first.stderr).toMatch(/--input-image \.\/photo\.png --idempotency-key/);
    // Again without --wait (a bare file name is a path here): it serves the file until the generation ends.
    const second = await run(['generate', '--model', 'image-upscale', '--input-image', 'photo.png']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('Serving the input files until the generation ends');
    expect(await stored()).toHaveLength(1);
    expectNoSecrets(first.stdout + first.stderr + second.stdout + second.stderr);
  });

  it('- reads the file from stdin', async () => {
    const result = await withStdin(['generate', 'image-upscale', '--input-image', '-', '--wait', '--no-download'], (stdin) =>
      stdin.end(PNG),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/completed/);
  });

  it('a huge stdin ends at the image limit with a typed error, not a full read', async () => {
    const result = await withStdin(['generate', 'image-upscale', '--input-image', '-'], (stdin) => {
      // A PNG head, then 64 MB of zeros written as the CLI reads (it stops at 20 MB).
      let left = 1024;
      stdin.write(PNG.subarray(0, 33));
      const more = () => {
        while (left > 0) {
          left -= 1;
          if (!stdin.write(Buffer.alloc(64 * 1024))) return void stdin.once('drain', more);
        }
        stdin.end();
      };
      more();
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/`input_image`: The upload is over the 20 MB limit for image uploads\. \(UPLOAD_TOO_LARGE\)/);
  });

  it('refuses what it cannot read or the service would not take, with a typed error and no escape sequences', async () => {
    const missing = await run(['generate', 'image-upscale', '--input-image', './nope.png']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/the file .*nope\.png" does not exist\. \(INPUT_FILE_UNREADABLE\)/);
    const text = await run(['generate', 'image-upscale', '--input-image', './notes.txt']);
    expect(text.code).toBe(5);
    expect(text.stderr).toContain('(MEDIA_NOT_ACCEPTED)');
    const folder = await run(['generate', 'image-upscale', '--input-image', '.']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('is not a regular file');
    const hostile = await run(['generate', 'image-upscale', '--input-image', `./${ESC}[2J${ESC}]0;pwned\x07.png`]);
    expect(hostile.code).toBe(2);
    expect(hostile.stderr + hostile.stdout).not.toContain(ESC);
    const twice = await run(['generate', 'image-pro', '--prompt', 'x', '--input-image', '-', '--reference-image', '-']);
    expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining('Only one input flag may read stdin')]);
    // Nothing submitted for any of them.
    expect(missing.stderr + text.stderr + folder.stderr).not.toContain('submitted');
  });

  it('against a service that is not local, a file needs S3 settings: a usage error naming them, before anything is sent', async () => {
    const result = await runCli(['generate', 'image-upscale', '--input-image', './photo.png'], {
      baseUrl: 'https://api.example.invalid',
      cwd: work,
      env: { AWS_SECRET_ACCESS_KEY: 'aws-secret-never-printed-123' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('set MEDIAGEN_S3_BUCKET, MEDIAGEN_S3_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY');
    const partial = await runCli(['generate', 'image-upscale', '--input-image', './photo.png'], {
      baseUrl: 'https://api.example.invalid',
      cwd: work,
      env: { MEDIAGEN_S3_BUCKET: 'my-bucket', AWS_SECRET_ACCESS_KEY: 'aws-secret-never-printed-123' },
    });
    expect(partial.code).toBe(2);
    expect(partial.stderr).toContain('MEDIAGEN_S3_BUCKET is set, but not MEDIAGEN_S3_REGION, AWS_ACCESS_KEY_ID.');
    expect(result.stderr + partial.stderr).not.toContain('aws-secret-never-printed');
    // URLs and ids still need nothing.
    const url = await run(['generate', 'image-upscale', '--input-image', 'https://example.com/a.png', '--no-download'], {});
    expect(url.stderr).not.toContain('MEDIAGEN_S3_BUCKET');
  });
});
