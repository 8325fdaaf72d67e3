import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
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
    // Only what changesets reads: manifests, the workspace file and .changeset.
    const copy = join(inject('scratch'), 'changeset-version');
    const manifests = [ROOT, ...publishedPackages().map((p) => p.dir), ...privatePackages().map((p) => p.dir)];
    for (const dir of manifests) {
      const target = join(copy, relative(ROOT, dir));
      mkdirSync(target, { recursive: true });
      cpSync(join(dir, 'package.json'), join(target, 'package.json'));
    }
    cpSync(join(ROOT, 'pnpm-workspace.yaml'), join(copy, 'pnpm-workspace.yaml'));
    cpSync(CHANGESETS, join(copy, '.changeset'), { recursive: true });
    const git = (...args: string[]) => run('git', args, { cwd: copy, timeoutMs: 30_000 });
    await git('init', '-q');
    await git('-c', 'user.email=release@check', '-c', 'user.name=release-check', 'add', '-A');
    await git('-c', 'user.email=release@check', '-c', 'user.name=release-check', 'commit', '-qm', 'before');
    await run(join(ROOT, 'node_modules/.bin/changeset'), ['version'], { cwd: copy, timeoutMs: 60_000 });

    const changesets = readChangesets(CHANGESETS);
    for (const { dir, pkg } of publishedPackages()) {
      const after = readJson<PackageJson>(join(copy, relative(ROOT, dir), 'package.json'));
      const bumps = changesets.map(({ releases }) => releases[pkg.name]).filter(Boolean);
      if (bumps.length === 0) continue;
      const expected = bump(pkg.version, bumps.includes('major') ? 'major' : bumps.includes('minor') ? 'minor' : 'patch');
      expect(after.version, pkg.name).toBe(expected);
      const changelog = readFileSync(join(copy, relative(ROOT, dir), 'CHANGELOG.md'), 'utf8');
      expect(changelog).toContain(`## ${expected}`);
      // Internal ranges stay workspace: ones; pnpm publish rewrites them to the released versions.
      for (const [dep, range] of Object.entries(after.dependencies ?? {}))
        if (dep.startsWith('@mediagen/')) expect(range).toMatch(/^workspace:/);
    }
    for (const { dir, pkg } of privatePackages()) {
      expect(readJson<PackageJson>(join(copy, relative(ROOT, dir), 'package.json')).version, pkg.name).toBe(pkg.version);
      expect(existsSync(join(copy, relative(ROOT, dir), 'CHANGELOG.md')), `${pkg.name} gets no changelog`).toBe(false);
    }
  });
});

/** Below 1.0 a breaking change is a minor bump, as .changeset/README.md says; major is kept as major. */
function bump(version: string, kind: 'major' | 'minor' | 'patch'): string {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  if (kind === 'major') return `${major + 1}.0.0`;
  if (kind === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}
