/**
 * A jobs file is input from outside: every malformed one is a usage error (exit 2, one line
 * naming the line) found before anything is priced or sent, read in bounded memory (a million
 * lines, a line of 64 MiB with no newline), and nothing is billed.
 */
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, control, emulator, runCli, tempDir } from './helpers';

let emu: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator(0.001);
  dir = await tempDir('hostile-batch');
});
afterAll(() => emu?.close());

const reserves = async () =>
  ((await control(emu.url, `/accounts/${ACCOUNT}`)).ledger as { type: string }[]).filter((l) => l.type === 'reserve').length;
const good = '{"model":"image-fast","prompt":"fine"}\n';

/** Writes `content` as a jobs file and runs the batch on it with --yes (nothing may be asked). */
async function batch(name: string, content: string | Buffer) {
  const file = join(dir, `${name}.jsonl`);
  await writeFile(file, content);
  return runCli(['batch', file, '--out', join(dir, `${name}-out`), '--yes'], { baseUrl: emu.url });
}

describe('hostile jobs files', () => {
  it.each([
    ['bad JSON', `${good}{"model": "image-fast", "prompt": }\n`, /line 2: not valid JSON/],
    ['not an object', `${good}[1,2]\n`, /line 2: not a JSON object/],
    ['no model', `${good}{"prompt":"x"}\n`, /line 2: no "model"/],
    [
      'an unknown model',
      `${good}${good}{"model":"no-such-model","prompt":"x"}\n`,
      /line 3: model "no-such-model" is not in this account's model list/,
    ],
    ['params the schema refuses', `{"model":"image-fast","prompt":"x","number_results":99}\n`, /line 1: number_results/],
    ['deep nesting', `{"model":"image-fast","prompt":${'['.repeat(5000)}${']'.repeat(5000)}}\n`, /line 1: nests deeper/],
    ['an estimate flag', `{"model":"image-fast","prompt":"x","estimate":true}\n`, /line 1: "estimate"/],
    ['invalid UTF-8', Buffer.concat([Buffer.from(good), Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]), /line 2: not UTF-8/],
    ['a huge line', `${good}{"model":"image-fast","prompt":"${'x'.repeat(200_000)}"}\n`, /line 2: longer than 16 KiB/],
    ['nothing', '\n\n', /has no requests/],
  ])('%s: exit 2, one line naming it, nothing billed', async (name, content, message) => {
    const before = await reserves();
    const { code, stdout, stderr } = await batch(name.replaceAll(' ', '-'), content);
    expect(code, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
    expect(stderr).toMatch(message);
    expect(await reserves()).toBe(before);
  });

  it('a million lines: refused at the 10,001st, without reading the rest', async () => {
    const file = join(dir, 'million.jsonl');
    const handle = await open(file, 'w');
    const block = good.repeat(10_000);
    for (let i = 0; i < 100; i++) await handle.write(block);
    await handle.close();
    const before = await reserves();
    const { code, stderr } = await runCli(['batch', file, '--out', join(dir, 'million-out'), '--yes'], { baseUrl: emu.url });
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('more than 10,000 requests');
    expect(await reserves()).toBe(before);
  });

  it('64 MiB without a line break: refused as too long once the first 16 KiB are read', async () => {
    const file = join(dir, 'no-newline.jsonl');
    const handle = await open(file, 'w');
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 64; i++) await handle.write(chunk);
    await handle.close();
    const { code, stderr } = await runCli(['batch', file, '--out', join(dir, 'no-newline-out'), '--yes'], { baseUrl: emu.url });
    expect(code, stderr).toBe(2);
    expect(stderr).toMatch(/line 1: longer than 16 KiB/);
  });

  it('--out is required, and --resume needs a batch to resume', async () => {
    const file = join(dir, 'ok.jsonl');
    await writeFile(file, good);
    const noOut = await runCli(['batch', file, '--yes'], { baseUrl: emu.url });
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('--out');
    const nothing = await runCli(['batch', file, '--out', join(dir, 'empty-out'), '--resume', '--yes'], { baseUrl: emu.url });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('holds no batch to resume');
  });
});
