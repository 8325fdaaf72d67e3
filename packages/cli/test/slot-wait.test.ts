import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { slotWaitText } from '../src/queue-line';
import { ACCOUNT, control, emulator, KEYS, runCli, spawnCli, spawnTty, waitForOutput } from './helpers';

// A `generate` on an account whose slots are all taken elsewhere (another CLI, another app): the
// service answers 429 CONCURRENCY_LIMIT, and the CLI waits for a slot, saying so, instead of
// failing. Ctrl-C in that wait stops a submit that was never created: nothing billed, exit 10.

const MAX_CONCURRENT = 5; // the pro tier's

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator(0.01);
});
afterAll(() => emu?.close());
beforeEach(async () => {
  await control(emu.url, '/faults/release', { method: 'POST', body: '{}' });
  await control(emu.url, '/reset', { method: 'POST', body: '{}' });
});

/** The account's reservations: one per generation the service accepted (and billed). */
const reserves = async () =>
  ((await control(emu.url, `/accounts/${ACCOUNT}`)).ledger as { type: string; generation_id: string | null }[]).filter(
    (row) => row.type === 'reserve',
  );

/** Fills every slot of the account with renders that stay in flight until released (as another process would). */
async function fillSlots(): Promise<void> {
  for (let i = 0; i < MAX_CONCURRENT; i++) {
    const response = await fetch(`${emu.url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.main}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-fast', prompt: `[[hold]] elsewhere ${i}` }),
    });
    expect(response.status).toBe(202);
  }
  expect((await control(emu.url, `/faults/held?min=${MAX_CONCURRENT}`)).held).toHaveLength(MAX_CONCURRENT);
}

const WAITING = /waiting for a slot · #1 in line · max_concurrent \(5\/5 in flight\) · can go in \d+s/;

describe('generate on a full account', () => {
  it('waits for a slot, saying where it stands; Ctrl-C there: nothing created or billed, exit 10', async () => {
    await fillSlots();
    const { child, done } = spawnCli(['generate', '--model', 'image-fast', '--prompt', 'a fox', '--wait', '--no-download'], {
      baseUrl: emu.url,
    });
    await waitForOutput(child, WAITING);
    child.kill('SIGINT');
    const { code, stderr } = await done;
    expect(code, stderr).toBe(10);
    expect(stderr).toContain('Stopped while waiting for a submit slot: no generation was created and nothing was billed.');
    expect(stderr).toMatch(
      /To submit it later \(never billed twice\): mediagen generate --model image-fast .*--idempotency-key [0-9a-f-]{36}/,
    );
    // One line per change off a terminal, however many 429s it met.
    expect(stderr.match(/^waiting for a slot/gm)).toHaveLength(1);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
    expect(stderr).not.toMatch(/[\r\x1b]/);
    // The service billed the five that held the slots, and nothing for this one.
    expect(await reserves()).toHaveLength(MAX_CONCURRENT);
  });

  it('goes as soon as a slot frees elsewhere, and follows its generation to the end', async () => {
    await fillSlots();
    const { child, done } = spawnCli(['generate', '--model', 'image-fast', '--prompt', 'a fox', '--wait', '--no-download', '--json'], {
      baseUrl: emu.url,
    });
    await waitForOutput(child, WAITING);
    expect((await control(emu.url, '/faults/release', { method: 'POST', body: JSON.stringify({ count: 1 }) })).released).toBe(1);
    const { code, stdout, stderr } = await done;
    expect(code, stderr).toBe(0);
    const generation = JSON.parse(stdout);
    expect(generation.status).toBe('completed');
    // Billed once: the held five and this one, whatever number of 429s came first.
    const billed = (await reserves()).map((r) => r.generation_id);
    expect(billed).toHaveLength(MAX_CONCURRENT + 1);
    expect(billed).toContain(generation.generation_id);
  });

  it('Ctrl-C once the submit is with the service: it goes on and is billed, and the key gets it back (unchanged behaviour)', async () => {
    await control(emu.url, '/faults', { method: 'POST', body: JSON.stringify({ endpoint: 'generate', hold: true }) });
    const { child, done } = spawnCli(['generate', '--model', 'image-fast', '--prompt', 'a heron', '--wait', '--no-download'], {
      baseUrl: emu.url,
    });
    expect((await control(emu.url, '/faults/held?min=1')).held).toHaveLength(1);
    child.kill('SIGINT');
    const { code, stderr } = await done;
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('Interrupted before the service confirmed the submit: it may or may not have been created.');
    expect(stderr).not.toContain('nothing was billed');
    expect((await control(emu.url, '/faults/release', { method: 'POST', body: '{}' })).released).toBe(1);
    // The held submit went on at the service and was billed: the printed command gets it back, not billed again.
    await expect.poll(async () => (await reserves()).length, { timeout: 20_000 }).toBe(1); // a bound, the awaited thing is the bill
    const resubmit = /Resubmit with the same key \(never billed twice\): mediagen (.*)$/m.exec(stderr)![1]!;
    const key = /--idempotency-key '?([0-9a-f-]{36})/.exec(resubmit)![1]!;
    const again = await runCli(['generate', '--model', 'image-fast', '--prompt', 'a heron', '--idempotency-key', key, '--json'], {
      baseUrl: emu.url,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).generation_id).toBe((await reserves())[0]!.generation_id);
    expect(await reserves()).toHaveLength(1);
  });

  it('on a terminal: one line redrawn in place; Ctrl-C typed there stops it unsent', async () => {
    await fillSlots();
    const { child, done } = spawnTty(['generate', '--model', 'image-fast', '--prompt', 'tty', '--wait', '--no-download'], {
      baseUrl: emu.url,
    });
    await waitForOutput(child, WAITING);
    child.stdin?.write('\x03');
    const { code, stdout } = await done;
    expect(code, stdout).toBe(10);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
    expect(stdout).toMatch(/\r\x1b\[2K.*waiting for a slot/);
    expect(stdout).toContain('nothing was billed');
    expect(await reserves()).toHaveLength(MAX_CONCURRENT);
  });
});

describe('the wait line', () => {
  it('says the position, what holds it and when it can go', () => {
    const now = 1_000_000;
    expect(slotWaitText({ position: 3, limit: 'max_concurrent' }, now)).toBe(
      'waiting for a slot · #3 in line · max_concurrent · when a generation ends',
    );
    expect(slotWaitText({ position: 1, limit: 'per_minute', notBefore: now + 4_200 }, now)).toBe(
      'waiting for a slot · #1 in line · the per-minute rate · can go in 5s',
    );
    expect(slotWaitText({ position: 1, limit: 'retry_after', notBefore: now - 10 }, now)).toContain('a 429 Retry-After · can go in 0s');
  });

  it('a limit a shared store made up reaches the terminal escaped', async () => {
    const { createIo } = await import('../src/io');
    const { createSlotWaitLine } = await import('../src/queue-line');
    let written = '';
    const stream = { write: (s: string) => ((written += s), true), isTTY: false } as never;
    const line = createSlotWaitLine(createIo({ stdout: stream, stderr: stream }, { color: false }));
    line.show({ position: 1, limit: 'x\x1b]0;owned\x07\u202e' as never });
    line.stop();
    expect(written).toContain('in line · x\uFFFD]0;owned\uFFFD\uFFFD ·');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
    expect(written).not.toMatch(/[\x1b\x07\u202e]/);
  });
});
