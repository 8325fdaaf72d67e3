/**
 * The key never reaches the terminal, whatever the command line or the environment looks like:
 * a key typed into a mistyped flag (`--apikey=…`) or in the command's place is echoed back by the
 * parser's own "unknown option/command" line; a key in `MEDIAGEN_API_KEY` with the `\r` of a
 * Windows-edited .env file, or spaces around it, is used trimmed (core trims env values), so the
 * trimmed key is what must be masked wherever it shows up (here: pasted into --param).
 */
import { spawn } from 'node:child_process';
import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, emulator, KEYS } from './helpers';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator(0.01);
});
afterAll(() => emu?.close());

/**
 * The bin with exactly this environment (not the helper, which adds the key and fails on a leak
 * before the test can say which). Asynchronous: the emulator answers from this process.
 */
function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MEDIAGEN_BASE_URL: emu.url, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: stdout + stderr, stderr }));
  });
}
const secretPart = (key: string) => key.slice(key.lastIndexOf('_') + 1);

describe("the parser's own errors", () => {
  it.each([
    ['a mistyped --api-key flag', ['models', `--apikey=${KEYS.main}`]],
    ['--api_key=', ['credits', `--api_key=${KEYS.main}`]],
    ['the key in place of the command', [KEYS.main]],
    ['the key where a flag is expected', ['models', `--${KEYS.main}`]],
    ['a webhook secret in a mistyped flag', ['models', '--webhook-secret=whsec_0123456789abcdef0123']],
  ])('%s: exit 2, one line, the secret shown as [redacted]', async (_what, args) => {
    const { code, output, stderr } = await run(args, { MEDIAGEN_API_KEY: KEYS.main });
    expect(code, output).toBe(2);
    expect(output).not.toContain(secretPart(KEYS.main));
    expect(output).not.toContain('0123456789abcdef0123');
    expect(stderr).toContain('[redacted]');
  });
});

describe('a key from the environment with whitespace around it', () => {
  it.each([
    ['a trailing \\r (a .env file saved on Windows)', `${KEYS.main}\r`],
    ['spaces around it', `  ${KEYS.main}  `],
    ['a trailing newline', `${KEYS.main}\n`],
  ])('%s: the key works, and pasted into --param it is masked', async (_what, value) => {
    const ok = await run(['credits', '--json'], { MEDIAGEN_API_KEY: value });
    expect(ok.code, ok.output).toBe(0);
    const pasted = await run(['estimate', '--model', 'image-fast', '--prompt', 'x', '--param', KEYS.main], { MEDIAGEN_API_KEY: value });
    expect(pasted.code, pasted.output).toBe(5);
    expect(pasted.output).not.toContain(secretPart(KEYS.main));
    expect(pasted.output).toContain('[redacted]');
  });
});
