/**
 * The folder given to create-mediagen is hostile until checked: a symlink (dangling, or to a
 * folder elsewhere), a path under a file, a template that fails halfway. Each gets one clear
 * line and exit 1, nothing is written outside the target, and a failed run leaves nothing
 * behind (a folder it made is removed; a folder that was there stays, empty).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CreateError, createApp } from '../src/create';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(PACKAGE, 'dist', 'cli.js');
const TEMPLATES = join(PACKAGE, 'dist', 'templates');
const scratch = mkdtempSync(join(tmpdir(), 'create-mediagen-target-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const create = (args: string[], cwd = scratch) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

/** One line on stderr, no stack trace. */
function expectOneLine(stderr: string): void {
  expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('a target that is a symlink', () => {
  it('a dangling symlink: refused with one line, exit 1, nothing created where it points', () => {
    const dir = mkdtempSync(join(scratch, 'dangling-'));
    const elsewhere = join(scratch, `elsewhere-${randomUUID()}`);
    symlinkSync(elsewhere, join(dir, 'app'));
    const result = create(['app', '--template', 'express'], dir);
    expect(result.status, result.stderr).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr).toContain('symbolic link');
    expect(existsSync(elsewhere)).toBe(false);
    expect(lstatSync(join(dir, 'app')).isSymbolicLink()).toBe(true);
  });

  it('a symlink to an empty folder outside: refused with one line, exit 1, nothing written there', () => {
    const dir = mkdtempSync(join(scratch, 'linked-'));
    const outside = mkdtempSync(join(scratch, 'outside-'));
    symlinkSync(outside, join(dir, 'app'));
    const result = create(['app', '--template', 'express'], dir);
    expect(result.status, result.stderr).toBe(1);
    expectOneLine(result.stderr);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('a target that cannot be written', () => {
  it('a path under a file: one line naming the problem, exit 1, the file untouched', () => {
    const dir = mkdtempSync(join(scratch, 'under-file-'));
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const result = create(['notes.txt/app', '--template', 'express'], dir);
    expect(result.status, result.stderr).toBe(1);
    expectOneLine(result.stderr);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});

describe('a template that fails halfway (its package.json is not JSON)', () => {
  const brokenTemplates = () => {
    const templates = mkdtempSync(join(scratch, 'templates-'));
    cpSync(join(TEMPLATES, 'express'), join(templates, 'express'), { recursive: true });
    writeFileSync(join(templates, 'express', 'package.json'), '{ not json');
    writeFileSync(join(templates, 'index.json'), JSON.stringify({ templates: ['express'] }));
    return templates;
  };

  it('throws CreateError and removes the folders it made (all of a/b/c)', () => {
    const dir = mkdtempSync(join(scratch, 'halfway-new-'));
    const error = (() => {
      try {
        createApp({ template: 'express', dir: join(dir, 'a', 'b', 'c'), templatesDir: brokenTemplates() });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(CreateError);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves a folder that was there (empty) in place, and empty', () => {
    const dir = mkdtempSync(join(scratch, 'halfway-existing-'));
    mkdirSync(join(dir, 'app'));
    expect(() => createApp({ template: 'express', dir: join(dir, 'app'), templatesDir: brokenTemplates() })).toThrow(CreateError);
    expect(readdirSync(join(dir, 'app'))).toEqual([]);
  });
});
