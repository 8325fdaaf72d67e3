import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { parseChangeset, readChangesets } from '../src/changesets';
import { run } from '../src/run';
import { type PackageJson, privatePackages, publishedPackages, ROOT, readJson } from '../src/workspace';

const CHANGESETS = join(ROOT, '.changeset');

describe('changesets', () => {
  it('reads a changeset the way changeset version does, and refuses a damaged one', () => {
    expect(parseChangeset('a.md', '---\n"@mediagen/core": minor\n"@mediagen/express": patch\n---\n\nNew thing.\n').releases).toEqual({
      '@mediagen/core': 'minor',
      '@mediagen/express': 'patch',
    });
    // What a markdown formatter made of the frontmatter once: a heading, silently ignored.
    expect(() => parseChangeset('b.md', '---\n\n## "@mediagen/core": minor\n\nNew thing.\n')).toThrow(/b\.md/);
    expect(() => parseChangeset('c.md', '---\n"@mediagen/core": huge\n---\n\nx\n')).toThrow(/c\.md/);
    expect(() => parseChangeset('d.md', '---\n"@mediagen/core": patch\n---\n\n')).toThrow(/summary/);
  });

  it('every changeset names published packages only, and every unreleased package has one', () => {
    const published = new Set(publishedPackages().map(({ pkg }) => pkg.name));
    const changesets = readChangesets(CHANGESETS);
    for (const { file, releases } of changesets) {
      for (const name of Object.keys(releases)) expect(published.has(name), `${file} names ${name}, which is not published`).toBe(true);
    }
    for (const { pkg } of publishedPackages().filter(({ pkg }) => pkg.version === '0.0.0')) {
      expect(
        changesets.some(({ releases }) => releases[pkg.name] === 'minor' || releases[pkg.name] === 'major'),
        `${pkg.name} is unreleased (0.0.0): its first changeset should be a minor one (first release 0.1.0)`,
      ).toBe(true);
    }
  });

  it('changeset version (in a throwaway copy) bumps published packages, writes their changelogs and leaves private ones alone', async () => {
    const copy = await throwawayCopy('changeset-version', (dir) => {
      cpSync(CHANGESETS, dir, { recursive: true });
      // One patch for every published package besides the real changesets, so the run has work
      // to check once a release has consumed them all.
      writeChangeset(dir, 'release-check.md', Object.fromEntries(publishedPackages().map(({ pkg }) => [pkg.name, 'patch'])));
    });
    await run(join(ROOT, 'node_modules/.bin/changeset'), ['version'], { cwd: copy, timeoutMs: 60_000 });

    const changesets = readChangesets(CHANGESETS);
    for (const { dir, pkg } of publishedPackages()) {
      const after = readJson<PackageJson>(join(copy, relative(ROOT, dir), 'package.json'));
      const bumps = ['patch', ...changesets.map(({ releases }) => releases[pkg.name]).filter(Boolean)];
      const expected = bump(pkg.version, bumps.includes('major') ? 'major' : bumps.includes('minor') ? 'minor' : 'patch');
      expect(after.version, pkg.name).toBe(expected);
      const changelog = readFileSync(join(copy, relative(ROOT, dir), 'CHANGELOG.md'), 'utf8');
      expect(changelog).toContain(`## ${expected}`);
      // Internal ranges stay workspace: ones; pnpm publish rewrites them to the released versions.
      for (const [dep, range] of Object.entries(after.dependencies ?? {}))
        if (dep.startsWith('@mediagen/')) expect(range).toMatch(/^workspace:/);
    }
    expectPrivateUntouched(copy);
  });

  it('scripts/first-release.mjs (in a throwaway copy, every published package at 0.0.0) takes each to exactly 0.1.0 with a changelog, then refuses to run again', async () => {
    const [withMinor, withPatch] = publishedPackages().map(({ pkg }) => pkg.name) as [string, string];
    const copy = await throwawayCopy(
      'first-release',
      (dir) => {
        mkdirSync(dir);
        cpSync(join(CHANGESETS, 'config.json'), join(dir, 'config.json'));
        writeChangeset(dir, 'a-feature.md', { [withMinor]: 'minor' });
        writeChangeset(dir, 'a-fix.md', { [withPatch]: 'patch' }); // alone, 0.0.0 + patch = 0.0.1
      },
      (pkg) => (pkg.private === true ? pkg : { ...pkg, version: '0.0.0' }),
    );
    mkdirSync(join(copy, 'scripts'));
    cpSync(join(ROOT, 'scripts/first-release.mjs'), join(copy, 'scripts/first-release.mjs'));
    mkdirSync(join(copy, 'node_modules/.bin'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules/.bin/changeset'), join(copy, 'node_modules/.bin/changeset'));

    const first = await run(process.execPath, ['scripts/first-release.mjs'], { cwd: copy, timeoutMs: 120_000 });
    expect(first.stdout).toContain(`${withPatch}: patch changesets only; adding a minor one`);
    expect(first.stdout).not.toContain(`${withMinor}: `);
    for (const { dir, pkg } of publishedPackages()) {
      expect(readJson<PackageJson>(join(copy, relative(ROOT, dir), 'package.json')).version, pkg.name).toBe('0.1.0');
      const changelog = readFileSync(join(copy, relative(ROOT, dir), 'CHANGELOG.md'), 'utf8');
      expect(changelog, pkg.name).toContain('## 0.1.0');
      // The added changeset's entry only where the package had no minor of its own.
      expect(changelog.includes('First release.'), pkg.name).toBe(pkg.name !== withMinor);
    }
    expect(readdirSync(join(copy, '.changeset'))).toEqual(['config.json']);
    expectPrivateUntouched(copy);

    const again = await run(process.execPath, ['scripts/first-release.mjs'], { cwd: copy, timeoutMs: 120_000, allowFailure: true });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${withMinor} is at 0.1.0: not a first release`);
  });
});

/**
 * A throwaway git repository with only what changesets and pnpm read: every workspace manifest
 * (through `manifest`), the workspace file, and a `.changeset` folder written by `changesets`.
 */
async function throwawayCopy(
  name: string,
  changesets: (dir: string) => void,
  manifest: (pkg: PackageJson) => PackageJson = (pkg) => pkg,
): Promise<string> {
  const copy = join(inject('scratch'), name);
  for (const { dir, pkg } of [{ dir: ROOT, pkg: readJson(join(ROOT, 'package.json')) }, ...publishedPackages(), ...privatePackages()]) {
    const target = join(copy, relative(ROOT, dir));
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'package.json'), `${JSON.stringify(dir === ROOT ? pkg : manifest(pkg), null, 2)}\n`);
  }
  cpSync(join(ROOT, 'pnpm-workspace.yaml'), join(copy, 'pnpm-workspace.yaml'));
  changesets(join(copy, '.changeset'));
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.email=release@check', '-c', 'user.name=release-check', ...args], { cwd: copy, timeoutMs: 30_000 });
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-qm', 'before');
  return copy;
}

function writeChangeset(dir: string, file: string, releases: Record<string, 'major' | 'minor' | 'patch'>): void {
  const frontmatter = Object.entries(releases).map(([name, kind]) => `"${name}": ${kind}`);
  writeFileSync(join(dir, file), `---\n${frontmatter.join('\n')}\n---\n\nA change.\n`);
}

/** Private packages are never versioned and get no changelog (`privatePackages.version: false`). */
function expectPrivateUntouched(copy: string): void {
  for (const { dir, pkg } of privatePackages()) {
    expect(readJson<PackageJson>(join(copy, relative(ROOT, dir), 'package.json')).version, pkg.name).toBe(pkg.version);
    expect(existsSync(join(copy, relative(ROOT, dir), 'CHANGELOG.md')), `${pkg.name} gets no changelog`).toBe(false);
  }
}

/** Below 1.0 a breaking change is a minor bump, as .changeset/README.md says; major is kept as major. */
function bump(version: string, kind: 'major' | 'minor' | 'patch'): string {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  if (kind === 'major') return `${major + 1}.0.0`;
  if (kind === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}
