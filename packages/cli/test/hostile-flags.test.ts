/**
 * Flags and env values the CLI passes on are checked by the CLI first, so the refusal names the
 * flag or variable the user typed (not an SDK option), comes before anything is sent or printed
 * as a resubmit command, and is one line with exit 2 (usage).
 */
import type { RunningEmulator } from '@mediagen/emulator';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulator, runCli } from './helpers';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator(0.01);
});
afterAll(() => emu?.close());

const run = (args: string[], options: Parameters<typeof runCli>[1] = {}) => runCli(args, { baseUrl: emu.url, ...options });
const balance = async () => JSON.parse((await run(['credits', '--json'])).stdout).balance as number;

describe('--idempotency-key', () => {
  it.each([
    ['empty', ''],
    ['a line break', 'key\nsecond line'],
    ['non-ASCII', 'ключ-1'],
    ['a control character', 'key\u0007'],
    ['256 characters', 'k'.repeat(256)],
  ])('%s: exit 2, one line naming --idempotency-key, no resubmit advice, nothing submitted', async (_what, key) => {
    const before = await balance();
    const { code, stdout, stderr } = await run(['generate', '--model', 'image-fast', '--prompt', 'a cat', '--idempotency-key', key]);
    expect(code, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
    expect(stderr).toContain('--idempotency-key');
    expect(stderr).not.toContain('resubmit');
    expect(await balance()).toBe(before);
  });

  it('any visible-ASCII key of 1-255 characters is sent as is (fast-check)', async () => {
    const visible = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: visible, minLength: 1, maxLength: 255 }), async (key) => {
        const { code, stdout, stderr } = await run([
          'generate',
          '--model',
          'image-fast',
          '--prompt',
          'x',
          '--json',
          '--idempotency-key',
          key,
        ]);
        expect(code, stderr).toBe(0);
        expect(JSON.parse(stdout).idempotency_key).toBe(key);
      }),
      { numRuns: 4 },
    );
  });
});

describe('--max-retries', () => {
  it.each(['', ' 3', '1e3', '0x10', '2.0', '-1', '+2', 'Infinity'])('%j: exit 2, one line naming --max-retries', async (value) => {
    const { code, stderr } = await run(['credits', '--max-retries', value]);
    expect(code, stderr).toBe(2);
    expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
    expect(stderr).toContain('--max-retries');
  });

  it('a whole number is taken', async () => {
    for (const value of ['0', '3', '10']) expect((await run(['credits', '--max-retries', value])).code).toBe(0);
  });
});

describe('MEDIAGEN_LOG', () => {
  it.each(['verbose', '1', 'true', 'debug\n'.repeat(2)])('%j: exit 2, one line naming MEDIAGEN_LOG and the levels', async (value) => {
    const { code, stderr } = await run(['credits'], { env: { MEDIAGEN_LOG: value } });
    expect(code, stderr).toBe(2);
    expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
    expect(stderr).toContain('MEDIAGEN_LOG');
    expect(stderr).toMatch(/debug.*info.*warn.*error.*off/);
  });

  it('a level in any case, with spaces around it, is taken', async () => {
    for (const value of ['DEBUG', ' info ', 'off', '']) expect((await run(['credits'], { env: { MEDIAGEN_LOG: value } })).code).toBe(0);
  });
});
