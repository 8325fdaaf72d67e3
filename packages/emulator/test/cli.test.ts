import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

/** The built bin, as `pnpm emulator` and `npx -p @mediagen/emulator mediagen-emulator` run it (turbo builds it first). */
const bin = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

function run(args: string[]): { child: ChildProcess; output: Promise<string>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let text = '';
  const output = new Promise<string>((resolve) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (/listening on|\n/.test(text)) resolve(text);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output, exit };
}

describe('mediagen-emulator CLI', () => {
  it('is an executable node script', () => {
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
  });

  it('serves the config file it is given on the port it is given, and stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mediagen-cli-'));
    const config = join(dir, 'emulator.json');
    writeFileSync(
      config,
      JSON.stringify({ timeScale: 0.001, accounts: [{ id: 'acct_cli', tier: 'ultimate', balance: 777, keys: [{ key: 'svc_live_cli' }] }] }),
    );
    const { child, output, exit } = run(['--port', '0', '--host', '127.0.0.1', '--config', config]);
    const url = /listening on (http:\/\/\S+)/.exec(await output)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/__emulator/health`)).status).toBe(200);
    const credits = await fetch(`${url}/api/v1/credits`, { headers: { authorization: 'Bearer svc_live_cli' } });
    expect(await credits.json()).toMatchObject({ balance: 777, tier: 'ultimate' });
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('refuses a config with an unknown key, naming it, and a bad port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mediagen-cli-'));
    const config = join(dir, 'bad.json');
    writeFileSync(config, JSON.stringify({ timeScale: 1, acounts: [] }));
    const bad = run(['--port', '0', '--config', config]);
    expect(await bad.exit).toBe(1);
    expect(await bad.output).toContain('acounts');
    const port = run(['--port', 'eighty']);
    expect(await port.exit).toBe(2);
  });

  it('--allow-loopback-inputs turns on the loopback input setting (off without it)', async () => {
    const submit = async (args: string[]) => {
      const { child, output, exit } = run(['--port', '0', ...args]);
      const url = /listening on (http:\/\/\S+)/.exec(await output)?.[1];
      const r = await fetch(`${url}/api/v1/generate`, {
        method: 'POST',
        headers: { authorization: 'Bearer svc_live_emulator_demo', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-upscale', input_image: 'http://127.0.0.1:9/photo.png', estimate: true }),
      });
      child.kill('SIGTERM');
      await exit;
      return r.status;
    };
    expect(await submit(['--allow-loopback-inputs'])).toBe(200);
    expect(await submit([])).toBe(422);
  });
});
