/**
 * On a terminal with no folder or template given, create-mediagen asks. Ctrl-D (end of input)
 * at a prompt is the user backing out: one line, exit 130, nothing written; never a stack trace.
 * Runs on a real pseudo-terminal through util-linux `script`, typing only once the prompt shows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(PACKAGE, 'dist', 'cli.js');
const scratch = mkdtempSync(join(tmpdir(), 'create-mediagen-prompt-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the bin on a pty; `answer(text)` is called with everything written so far, on each write. */
function onTerminal(cwd: string, answer: (seen: string, child: ChildProcess) => void): Promise<{ code: number | null; output: string }> {
  // `script` reports the child's status as its own with -e; the shell prints it too, to be sure.
  const command = `'${process.execPath}' '${CLI}'; echo "EXIT=$?"`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TERM: 'dumb' },
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    answer(output, child);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('Ctrl-D at a prompt', () => {
  it.each([
    ['the folder prompt', [] as string[]],
    ['the template prompt', ['my-app\r']],
  ])('at %s: "Cancelled." and exit 130, no stack trace, nothing written', async (_what, answers) => {
    const cwd = mkdtempSync(join(scratch, 'cancel-'));
    const pending = [...answers, '\u0004'];
    let prompts = 0;
    const { output } = await onTerminal(cwd, (seen, child) => {
      const shown = seen.split(/Folder for the new app: |Template \(/).length - 1;
      while (prompts < shown && pending.length > 0) {
        prompts++;
        child.stdin?.write(pending.shift()!);
      }
    });
    expect(output).toMatch(/EXIT=130/);
    expect(output).toContain('Cancelled');
    expect(output).not.toMatch(/AbortError|\n\s+at /);
    expect(readdirSync(cwd)).toEqual([]);
  });
});
