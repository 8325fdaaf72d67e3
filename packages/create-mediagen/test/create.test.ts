import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../src/args';
import { packageName } from '../src/create';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(PACKAGE, '..', '..');
const CLI = join(PACKAGE, 'dist', 'cli.js');
const TEMPLATES = join(PACKAGE, 'dist', 'templates');
const scratch = mkdtempSync(join(tmpdir(), 'create-mediagen-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
const filesOf = (dir: string) =>
  walk(dir)
    .map((file) => relative(dir, file).split('\\').join('/'))
    .sort();
const create = (args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd: scratch, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

/** The sample's own files, as git has them (no build output, installs or local state). */
function sampleSources(sample: string): string[] {
  const out = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: join(ROOT, 'apps', sample),
    encoding: 'utf8',
  });
  return out.stdout
    .split('\n')
    .filter(Boolean)
    .filter((file) => !['turbo.json', 'biome.json'].includes(file))
    .filter(
      (file) =>
        !privateDevDependencies(sample).some((name) => readFileSync(join(ROOT, 'apps', sample, file), 'utf8').includes(`from '${name}'`)),
    );
}

/** The monorepo's own test helpers a sample uses (private packages): left out of a template with the tests importing them. */
const privateDevDependencies = (sample: string) =>
  Object.keys(readJson(join(ROOT, 'apps', sample, 'package.json')).devDependencies ?? {}).filter(
    (name) => workspacePackage(name)?.private === true,
  );

const samples = readdirSync(join(ROOT, 'apps')).filter((name) => name.endsWith('-sample'));
const workspacePackage = (name: string) =>
  readdirSync(join(ROOT, 'packages'))
    .map((dir) => join(ROOT, 'packages', dir, 'package.json'))
    .filter(existsSync)
    .map(readJson)
    .find((pkg) => pkg.name === name);
const workspaceVersion = (name: string) => workspacePackage(name)?.version;

describe('the templates packed at build time', () => {
  it('carry one template per apps/*-sample', () => {
    expect(readJson(join(TEMPLATES, 'index.json')).templates).toEqual(samples.map((s) => s.replace(/-sample$/, '')).sort());
  });

  it.each(samples)('%s: every file of the sample, with published version ranges instead of workspace ones', (sample) => {
    const template = join(TEMPLATES, sample.replace(/-sample$/, ''));
    const sources = sampleSources(sample).map((file) => file.replace(/(^|\/)\.([^/]+)$/, '$1_dot_$2'));
    expect(filesOf(template)).toEqual(sources.sort());
    const pkg = readJson(join(template, 'package.json'));
    const original = readJson(join(ROOT, 'apps', sample, 'package.json'));
    for (const field of ['dependencies', 'devDependencies']) {
      for (const [name, range] of Object.entries<string>(original[field] ?? {})) {
        if (privateDevDependencies(sample).includes(name)) {
          expect(pkg[field][name], `${field}.${name}`).toBeUndefined();
          continue;
        }
        const expected = range.startsWith('workspace:') ? `^${workspaceVersion(name)}` : range;
        expect(pkg[field][name], `${field}.${name}`).toBe(expected);
      }
    }
  });
});

describe('create-mediagen <dir> --template <name>', () => {
  it('writes the app out with its dotfiles and its own name', () => {
    const result = create(['My App', '--template', 'express']);
    expect(result.status, result.stderr).toBe(0);
    const dir = join(scratch, 'My App');
    expect(filesOf(dir)).toEqual(
      filesOf(join(TEMPLATES, 'express'))
        .map((file) => file.replace(/(^|\/)_dot_([^/]+)$/, '$1.$2'))
        .sort(),
    );
    expect(existsSync(join(dir, '.gitignore'))).toBe(true);
    expect(readJson(join(dir, 'package.json')).name).toBe('my-app');
    expect(result.stdout).toContain('npm install');
  });

  it('takes --template=<name> and writes into an empty folder that exists', () => {
    mkdirSync(join(scratch, 'empty'));
    const result = create(['empty', '--template=nest']);
    expect(result.status, result.stderr).toBe(0);
    expect(readJson(join(scratch, 'empty', 'package.json')).dependencies['@mediagen/nestjs']).toMatch(/^\^/);
  });

  it('refuses a folder that is not empty, and writes nothing into it', () => {
    mkdirSync(join(scratch, 'taken'));
    writeFileSync(join(scratch, 'taken', 'notes.txt'), 'mine');
    const result = create(['taken', '--template', 'next']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('not an empty folder');
    expect(readdirSync(join(scratch, 'taken'))).toEqual(['notes.txt']);
  });

  it('refuses an unknown template, naming the ones there are', () => {
    const result = create(['other', '--template', 'rails']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('express, nest, next');
    expect(existsSync(join(scratch, 'other'))).toBe(false);
  });

  it('with no template and no terminal to ask, prints the usage instead of waiting', () => {
    const result = create(['quiet']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--template express|nest|next');
    expect(existsSync(join(scratch, 'quiet'))).toBe(false);
  });
});

describe('arguments', () => {
  it('reads a folder and a template in any order, and refuses what it does not know', () => {
    expect(parseArgs(['-t', 'next', 'app'])).toEqual({ dir: 'app', template: 'next', help: false });
    expect(parseArgs(['app', '--template=express'])).toEqual({ dir: 'app', template: 'express', help: false });
    expect(parseArgs(['--help']).help).toBe(true);
    expect(() => parseArgs(['app', '--template'])).toThrow('needs a template name');
    expect(() => parseArgs(['app', '--force'])).toThrow('Unknown option --force');
    expect(() => parseArgs(['a', 'b'])).toThrow('One folder only');
  });

  it('makes a valid npm package name of any folder name', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (folder) => {
        const name = packageName(folder);
        expect(name).toMatch(/^[a-z0-9~][a-z0-9._~-]*$/);
        expect(name.length).toBeLessThanOrEqual(214);
      }),
    );
  });
});
