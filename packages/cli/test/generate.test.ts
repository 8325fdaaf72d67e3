import { readdir, readFile, writeFile } from 'node:fs/promises';
import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, control, emulator, runCli, spawnCli, spawnTty, tempDir, waitForOutput } from './helpers';

const PNG = [0x89, 0x50, 0x4e, 0x47];
const ESC = '\x1b';

// Renders in tens of milliseconds, so each --wait takes one or two polls.
let fast: RunningEmulator;
// Renders in seconds: time to press Ctrl-C while a generation is still running.
let slow: RunningEmulator;
beforeAll(async () => {
  [fast, slow] = await Promise.all([emulator(0.01), emulator(0.4)]);
});
afterAll(async () => {
  await Promise.all([fast?.close(), slow?.close()]);
});

/** Holds the next status read inside the emulator until `/faults/release`. */
const holdNextStatusRead = (base: string) =>
  control(base, '/faults', { method: 'POST', body: JSON.stringify({ endpoint: 'status', hold: true }) });

const ledger = async (base: string) => (await control(base, `/accounts/${ACCOUNT}`)).ledger as Array<{ type: string }>;

describe('generate --wait, not on a terminal', () => {
  it('prints the key, plain status lines, downloads every output and prints paths, credits and request id', async () => {
    const out = await tempDir('out');
    const { code, stdout, stderr } = await runCli(
      ['generate', '--model', 'image-fast', '--prompt', 'a fox', '--param', 'number_results=2', '--wait', '--out', out],
      { baseUrl: fast.url },
    );
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(
      /idempotency key [0-9a-f-]{36} \(to resubmit without a second charge: mediagen generate --model image-fast .*--idempotency-key/,
    );
    expect(stderr).toMatch(/^status (pending|processing|completed) after \d+s \(image usually takes 5-15 s\)$/m);
    expect(stderr).toMatch(/^status completed after/m);
    // Plain lines for logs: no carriage returns, no escape sequences.
    expect(stderr).not.toContain('\r');
    expect(stderr + stdout).not.toContain(ESC);
    const files = stdout.trim().split('\n').slice(0, 2);
    expect(files.every((f) => f.startsWith(out))).toBe(true);
    for (const file of files) expect([...(await readFile(file)).subarray(0, 4)]).toEqual(PNG);
    expect(await readdir(out)).toHaveLength(2);
    expect(stdout).toMatch(/completed [0-9a-f-]{36} in [\d.]+s · 8 credits charged · request req_/);
  });

  it('--json parses: the final generation, the files and the idempotency key', async () => {
    const out = await tempDir('json');
    const { code, stdout } = await runCli(
      ['generate', '--model', 'text-writer', '--prompt', 'a tagline', '--wait', '--out', out, '--json'],
      {
        baseUrl: fast.url,
      },
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.status).toBe('completed');
    expect(result.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.files).toHaveLength(1);
    expect(await readFile(result.files[0], 'utf8')).toContain('a tagline');
  });

  it('a failed generation exits 7 with its code and the refund', async () => {
    const { code, stdout, stderr } = await runCli(
      ['generate', '--model', 'image-fast', '--prompt', 'x [[fail:model_unavailable]]', '--wait', '--no-download'],
      { baseUrl: fast.url },
    );
    expect(code).toBe(7);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/0 credits charged \(refunded\)/);
    expect(stderr).toMatch(/^error .*failed: model_unavailable.*\(model_unavailable\) → \S.*\[req_/m);
    expect(stderr).toMatch(/submit without --idempotency-key/);
  });
});

describe('generate without --wait, then wait and get', () => {
  it('submits, then wait <id> downloads and get <id> reads it', async () => {
    const submit = await runCli(['generate', '--model', 'image-fast', '--prompt', 'a boat', '--json'], { baseUrl: fast.url });
    expect(submit.code).toBe(0);
    const { generation_id: id, idempotency_key } = JSON.parse(submit.stdout);
    expect(idempotency_key).toMatch(/^[0-9a-f-]{36}$/);

    const out = await tempDir('wait');
    const waited = await runCli(['wait', id, '--out', out], { baseUrl: fast.url });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toContain(`${out}/${id}-image-fast-1.png`);

    const got = await runCli(['get', id], { baseUrl: fast.url });
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/status\s+completed/);
    expect(got.stdout).toMatch(/credits\s+4 charged/);
    const json = await runCli(['get', id, '--json'], { baseUrl: fast.url });
    expect(JSON.parse(json.stdout).generation_id).toBe(id);
  });

  it('--idempotency-key resubmits without a second charge', async () => {
    const key = `cli-test-${Date.now()}`;
    const before = (await ledger(fast.url)).filter((e) => e.type === 'reserve').length;
    const args = ['generate', '--model', 'image-fast', '--prompt', 'same', '--idempotency-key', key, '--json'];
    const first = JSON.parse((await runCli(args, { baseUrl: fast.url })).stdout);
    const second = JSON.parse((await runCli(args, { baseUrl: fast.url })).stdout);
    expect(second.generation_id).toBe(first.generation_id);
    expect(second.idempotency_key).toBe(key);
    expect((await ledger(fast.url)).filter((e) => e.type === 'reserve').length).toBe(before + 1);
  });
});

describe('interrupted or unwritable', () => {
  it('Ctrl-C during the submit prints the resubmit command; running it bills exactly once', async () => {
    const reserves = async () => (await ledger(slow.url)).filter((e) => e.type === 'reserve').length;
    const before = await reserves();
    // The submit is held inside the emulator (its key claimed, nothing billed) until released.
    await control(slow.url, '/faults', { method: 'POST', body: JSON.stringify({ endpoint: 'generate', hold: true }) });
    const { child, done } = spawnCli(['generate', '--model', 'image-fast', '--prompt', 'resume-me', '--json'], { baseUrl: slow.url });
    expect((await control(slow.url, '/faults/held?min=1')).held).toHaveLength(1);
    child.kill('SIGINT');
    const { code, stderr, stdout } = await done;
    expect(code, stderr + stdout).toBe(130);
    const resubmit = /Resubmit with the same key \(never billed twice\): mediagen (.+)$/m.exec(stderr)?.[1];
    expect(resubmit, stderr).toMatch(/^generate --model image-fast --prompt resume-me --idempotency-key [0-9a-f-]{36} --json$/);
    // The interrupted request got through: let it finish enqueuing (billed once, its key done).
    expect((await control(slow.url, '/faults/release', { method: 'POST', body: '{}' })).released).toBe(1);
    await expect.poll(reserves, { timeout: 20_000 }).toBe(before + 1);
    const again = await runCli(resubmit!.split(' '), { baseUrl: slow.url });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).idempotency_key).toBe(resubmit!.split(' ')[6]);
    expect(await reserves()).toBe(before + 1);
  });

  it('an --out that cannot be written exits 9 with the resume hint', async () => {
    const file = `${await tempDir('notdir')}/file`;
    await writeFile(file, 'x');
    const { code, stderr } = await runCli(['generate', '--model', 'image-fast', '--prompt', 'x', '--wait', '--out', file], {
      baseUrl: fast.url,
    });
    expect(code).toBe(9);
    expect(stderr).toMatch(/Could not write the outputs into .*file \((EEXIST|ENOTDIR)\).*OUTPUT_WRITE_FAILED/);
    expect(stderr).toMatch(/→ Pick a writable directory, then: mediagen wait [0-9a-f-]{36} --out <dir>/);
  });
});

describe('on a terminal', () => {
  it('draws one live line: spinner, status, elapsed, expected time for the kind', async () => {
    const out = await tempDir('tty');
    // The first status read is held: the line is drawn while the generation is certainly live,
    // whatever the render's pace; released once it shows, the run goes on to completion.
    await holdNextStatusRead(slow.url);
    // A cache of its own: no render history yet, so the line shows the contract's typical time.
    const { child, done } = spawnTty(['generate', '--model', 'image-fast', '--prompt', 'tty', '--wait', '--out', out], {
      baseUrl: slow.url,
      env: { XDG_CACHE_HOME: await tempDir('tty-cache') },
    });
    // Spinner, status (the submit's, the read being held), elapsed seconds, the kind's expected time.
    await waitForOutput(child, /\[2K[^\r]*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏][^\r]*submitted[^\r]*\d+s[^\r]*image usually takes 5-15 s/);
    expect((await control(slow.url, '/faults/held?min=1')).held).toMatchObject([{ endpoint: 'status' }]);
    expect((await control(slow.url, '/faults/release', { method: 'POST', body: '{}' })).released).toBe(1);
    const { code, stdout } = await done;
    expect(code).toBe(0);
    // Redrawn in place: clear-line sequences and a braille spinner frame.
    expect(stdout).toContain('\r\x1b[2K');
    expect(stdout).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(stdout).toMatch(/completed [0-9a-f-]{36} in/);
    expect(await readdir(out)).toHaveLength(1);
  });
});

describe('Ctrl-C while waiting stops waiting, never the generation', () => {
  it('SIGINT: prints mediagen wait <id>, exits 130, and the generation completes; wait <id> resumes', async () => {
    const out = await tempDir('sigint');
    // The first status read is held: the CLI is waiting, whatever the render's pace, when Ctrl-C comes.
    await holdNextStatusRead(slow.url);
    const { child, done } = spawnCli(['generate', '--model', 'image-fast', '--prompt', 'interrupt me', '--wait', '--out', out], {
      baseUrl: slow.url,
    });
    const id = await waitForOutput(child, /submitted ([0-9a-f-]{36})/);
    expect((await control(slow.url, '/faults/held?min=1')).held).toMatchObject([{ endpoint: 'status' }]);
    child.kill('SIGINT');
    const { code, stderr } = await done;
    expect((await control(slow.url, '/faults/release', { method: 'POST', body: '{}' })).released).toBe(1);
    expect(code).toBe(130);
    expect(stderr).toContain(`Stopped waiting. Generation ${id} was not cancelled`);
    expect(stderr).toContain(`Resume with: mediagen wait ${id} --out ${out}`);
    expect(await readdir(out)).toHaveLength(0);

    const resumed = await runCli(['wait', id, '--out', out], { baseUrl: slow.url });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/completed .* 4 credits charged/);
    expect(await readdir(out)).toHaveLength(1);
  });

  it('Ctrl-C typed on the terminal does the same', async () => {
    await holdNextStatusRead(slow.url);
    const { child, done } = spawnTty(['generate', '--model', 'image-fast', '--prompt', 'tty interrupt', '--wait', '--no-download'], {
      baseUrl: slow.url,
    });
    const id = await waitForOutput(child, /submitted ([0-9a-f-]{36})/);
    expect((await control(slow.url, '/faults/held?min=1')).held).toMatchObject([{ endpoint: 'status' }]);
    child.stdin?.write('\x03');
    const { code, stdout } = await done;
    expect((await control(slow.url, '/faults/release', { method: 'POST', body: '{}' })).released).toBe(1);
    expect(code).toBe(130);
    expect(stdout).toContain(`Resume with: mediagen wait ${id}`);
    const status = await runCli(['get', id, '--json'], { baseUrl: slow.url });
    expect(JSON.parse(status.stdout).status).not.toBe('failed');
  });
});
