/**
 * Folder names are hostile until checked: they end up in package.json and in the commands
 * printed for the user to paste. A name with a control character (a newline, an escape) is
 * refused before anything is written; any other name is printed so a POSIX shell reads it
 * back as the same folder (spaces, quotes, `$(…)`), never as a second command. A literal `--`
 * (passed through by some package managers from `npm create … -- --template x`) is skipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../src/args';
import { shellQuote } from '../src/create';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(PACKAGE, 'dist', 'cli.js');
const scratch = mkdtempSync(join(tmpdir(), 'create-mediagen-names-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const create = (args: string[], cwd = scratch) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

/** What `sh` makes of `printf %s <text>`: the one word a pasted `cd <text>` would use. */
const shellWord = (text: string) => spawnSync('sh', ['-c', `printf %s ${text}`], { encoding: 'utf8' }).stdout;

describe('the printed next steps', () => {
  it.each(['My App', "it's", 'a;touch pwned', '$(touch pwned)', '`touch pwned`'])(
    'quote the folder %j so a pasted `cd` goes to it and runs nothing else',
    (name) => {
      const cwd = mkdtempSync(join(scratch, 'quote-'));
      const result = create([name, '--template', 'express'], cwd);
      expect(result.status, result.stderr).toBe(0);
      const cd = /^ {2}cd (.*)$/m.exec(result.stdout)?.[1];
      expect(cd).toBeDefined();
      const shellCwd = mkdtempSync(join(scratch, 'shell-'));
      expect(spawnSync('sh', ['-c', `printf %s ${cd}`], { cwd: shellCwd, encoding: 'utf8' }).stdout).toBe(name);
      expect(readdirSync(shellCwd)).toEqual([]);
      expect(JSON.parse(readFileSync(join(cwd, name, 'package.json'), 'utf8')).name).toMatch(/^[a-z0-9~][a-z0-9._~-]*$/);
    },
  );

  it('shellQuote: any text reads back as itself, one word (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'aZ9 \'"$`\\;&|()<>*?[]{}~!#-_./é'.split('')), maxLength: 20 }), (text) => {
        expect(shellWord(shellQuote(text))).toBe(text);
      }),
      { numRuns: 60 },
    );
  });
});

describe('control characters in the folder name', () => {
  it.each(['x\ny', 'x\ry', 'x\u001b]0;pwned\u0007', 'x\ty', 'x\u007fy'])('%j is refused: one line, exit 1, nothing created', (name) => {
    const cwd = mkdtempSync(join(scratch, 'control-'));
    const result = create([name, '--template', 'express'], cwd);
    expect(result.status, result.stdout).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    // The refusal does not echo the raw control character to the terminal.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be echoed.
    expect(result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('a literal `--` (some package managers pass it through from `npm create … -- --template x`)', () => {
  it('parseArgs skips it, and reads the options after it as options', () => {
    expect(parseArgs(['app', '--', '--template', 'next'])).toEqual({ dir: 'app', template: 'next', help: false });
    expect(parseArgs(['--', 'app', '-t', 'nest'])).toEqual({ dir: 'app', template: 'nest', help: false });
    expect(() => parseArgs(['--', 'a', 'b'])).toThrow('One folder only');
  });

  it('`create-mediagen my-app -- --template express` writes the app', () => {
    const cwd = mkdtempSync(join(scratch, 'dashdash-'));
    const result = create(['my-app', '--', '--template', 'express'], cwd);
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(join(cwd, 'my-app', 'package.json'))).toBe(true);
  });
});
