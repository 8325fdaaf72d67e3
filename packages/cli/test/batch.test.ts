/**
 * `mediagen batch` (issue 34, item 5), as real processes against the emulator: the price first,
 * results in order, and a batch killed mid-run (SIGKILL) or stopped with Ctrl-C on a terminal,
 * then resumed with `--resume`: every item billed exactly once, none lost (counted from the
 * emulator's account ledger), and no output downloaded twice.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT, control, emulator, runCli, spawnTty, tempDir, waitForOutput } from './helpers';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator(0.001);
});
afterAll(() => emu?.close());
beforeEach(async () => {
  await control(emu.url, '/faults/release', { method: 'POST', body: '{}' });
  await control(emu.url, '/faults', { method: 'DELETE' });
});

/** Whole batches of real processes on a loaded machine: bounded by minutes (the describe's bound), not raced. */
const run = (args: string[], options: Parameters<typeof runCli>[1] = {}) =>
  runCli(args, { baseUrl: emu.url, timeoutMs: 200_000, ...options });
const reserves = async (): Promise<string[]> =>
  ((await control(emu.url, `/accounts/${ACCOUNT}`)).ledger as { type: string; generation_id: string }[])
    .filter((l) => l.type === 'reserve')
    .map((l) => l.generation_id);

async function jobsFile(prompts: string[]): Promise<{ dir: string; file: string }> {
  const dir = await tempDir('batch');
  const file = join(dir, 'jobs.jsonl');
  await writeFile(file, prompts.map((prompt) => `${JSON.stringify({ model: 'image-fast', prompt })}\n`).join(''));
  return { dir, file };
}

interface ResultLine {
  index: number;
  line: number;
  status: string;
  generation_id: string | null;
  files: string[];
  error: { code: string } | null;
}
const results = async (out: string): Promise<ResultLine[]> =>
  (await readFile(join(out, 'results.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** Each generation of `lines` billed once, and no generation of the run billed twice. */
async function expectBilledOnce(before: string[], lines: ResultLine[]): Promise<void> {
  const billed = (await reserves()).slice(before.length);
  expect(billed.length - new Set(billed).size, 'billed twice').toBe(0);
  const ids = lines.map((l) => l.generation_id);
  expect(ids.every(Boolean), 'lost').toBe(true);
  expect(new Set(billed)).toEqual(new Set(ids));
}

// Whole batches of real CLI processes, renders and a resume per test: minutes on a loaded machine (a bound, not a race).
describe('mediagen batch', { timeout: 240_000 }, () => {
  it('prices first, runs every line, downloads each output, writes results.jsonl in order with failures per line', async () => {
    const { dir, file } = await jobsFile(['one', 'two [[fail:model_unavailable]]', 'three', 'four']);
    const out = join(dir, 'out');
    const before = await reserves();
    const { code, stdout, stderr } = await run(['batch', file, '--out', out, '--yes']);
    expect(code, stderr).toBe(7); // one line failed
    expect(stderr).toMatch(/^4 request\(s\) to submit: 16 credits at most \(exact estimates\) · balance [\d,]+\n/);
    expect(stderr).toContain('line 2: failed model_unavailable');
    expect(stdout).toContain('3 completed · 1 failed · 0 unfinished · 12 credits charged');
    const lines = await results(out);
    expect(lines.map((l) => [l.index, l.line, l.status])).toEqual([
      [0, 1, 'completed'],
      [1, 2, 'failed'],
      [2, 3, 'completed'],
      [3, 4, 'completed'],
    ]);
    expect(lines[1]?.error?.code).toBe('model_unavailable');
    for (const l of lines.filter((x) => x.status === 'completed')) {
      expect(l.files).toHaveLength(1);
      expect((await stat(l.files[0] as string)).size).toBeGreaterThan(0);
    }
    await expectBilledOnce(before, lines);
    // The directory holds this batch: a second start is refused, --resume bills nothing.
    const again = await run(['batch', file, '--out', out, '--yes']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--resume');
    const resumed = await run(['batch', file, '--out', out, '--resume', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(7);
    expect(resumed.stderr).toContain('nothing is billed again');
    await expectBilledOnce(before, lines);
  });

  it('never asks when stdin is not a terminal: without --yes it refuses, and nothing is billed', async () => {
    const { dir, file } = await jobsFile(['no terminal']);
    const before = await reserves();
    const { code, stdout, stderr } = await run(['batch', file, '--out', join(dir, 'out')]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('stdin is not a terminal');
    expect(stderr).toContain('--yes');
    expect(await reserves()).toEqual(before);
  });

  it('killed with SIGKILL mid-run (one submit billed with its answer held, four rendering), then --resume: each line billed exactly once, none lost', async () => {
    // Lines 1-5 are taken first (5 in flight on Pro): they render until released; 6-8 after.
    const prompts = ['a [[hold]]', 'b [[hold]]', 'c [[hold]]', 'd [[hold]]', 'e [[hold]]', 'f', 'g', 'h'];
    const { dir, file } = await jobsFile(prompts);
    const out = join(dir, 'out');
    const before = await reserves();
    // Asked on a terminal, so the fault goes in after the price (an estimate is a POST /generate too):
    // the first submit to arrive is billed, then its 202 is held until the process is dead.
    const { child, done } = spawnTty(['batch', file, '--out', out], { baseUrl: emu.url, timeoutMs: 200_000 });
    await waitForOutput(child, /Spend up to 32 credits\? \[y\/N\]/);
    await control(emu.url, '/faults', { method: 'POST', body: JSON.stringify({ endpoint: 'generate', when: 'after', hold: true }) });
    child.stdin?.write('y\r');
    await control(emu.url, '/faults/held?min=5');
    // The batch process itself (the terminal's child), by the pid its lock names.
    process.kill(Number(await readFile(join(out, '.mediagen-batch', 'lock'), 'utf8')), 'SIGKILL');
    await done;
    await control(emu.url, '/faults', { method: 'DELETE' });
    // Everything the killed process had sent is let go, a request that reached the emulator only
    // after the kill included (found by CI: a render held past the first release kept a slot for
    // the emulator's 60 s, and the resume waited on it): released until nothing is held.
    await expect
      .poll(async () => {
        const { held } = (await control(emu.url, '/faults/release', { method: 'POST', body: '{}' })) as { held: unknown[] };
        return held.length;
      })
      .toBe(0);
    // Four rendering, and the held one billed once its (lost) answer is let go, or not at all.
    expect((await reserves()).length - before.length).toBeGreaterThanOrEqual(4);

    const resumed = await run(['batch', file, '--out', out, '--resume', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('3 request(s) to submit (5 recorded by the earlier run: followed, not billed again)');
    const lines = await results(out);
    expect(lines.map((l) => l.status)).toEqual(Array(8).fill('completed'));
    await expectBilledOnce(before, lines);
    for (const l of lines) expect(l.files).toHaveLength(1);
  });

  it('Ctrl-C on a terminal after asking, then --resume: nothing billed twice, what was downloaded is not downloaded again', async () => {
    // Lines 1-2 finish and are downloaded; 3-7 then hold all five slots.
    const prompts = ['p', 'q', 'r [[hold]]', 's [[hold]]', 't [[hold]]', 'u [[hold]]', 'v [[hold]]'];
    const { dir, file } = await jobsFile(prompts);
    const out = join(dir, 'out');
    const before = await reserves();
    const { child, done } = spawnTty(['batch', file, '--out', out], { baseUrl: emu.url, timeoutMs: 200_000 });
    await waitForOutput(child, /Spend up to 28 credits\? \[y\/N\]/);
    child.stdin?.write('y\r');
    await control(emu.url, '/faults/held?min=5');
    const early = (await results(out).catch(() => [])).length; // results.jsonl is written at the end only
    expect(early).toBe(0);
    child.stdin?.write('\x03');
    const stopped = await done;
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toContain('Resume with (nothing billed or downloaded twice)');
    const first = await results(out);
    expect(first.map((l) => l.status)).toEqual(['completed', 'completed', ...Array(5).fill('unfinished')]);
    const downloaded = await Promise.all(first.slice(0, 2).map((l) => stat(l.files[0] as string)));
    await control(emu.url, '/faults/release', { method: 'POST', body: '{}' });

    const resumed = await run(['batch', file, '--out', out, '--resume', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('All 7 request(s) were submitted by the earlier run');
    const lines = await results(out);
    expect(lines.map((l) => l.status)).toEqual(Array(7).fill('completed'));
    await expectBilledOnce(before, lines);
    // The files written before Ctrl-C are the same files (same inode, same time): not fetched again.
    for (const [i, s] of downloaded.entries()) {
      const now = await stat(lines[i]?.files[0] as string);
      expect([now.ino, now.mtimeMs]).toEqual([s.ino, s.mtimeMs]);
    }
  });
});
