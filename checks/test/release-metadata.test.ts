import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { OWNED_FIELDS, repositoryUrl, STAND_IN_REPOSITORY_URL, staleManifests } from '../../scripts/release-metadata.mjs';
import { run } from '../src/run';
import { type PackageJson, publishedPackages, ROOT, readJson } from '../src/workspace';

// The public address is one setting (`publicRepository` in the root package.json, or
// MEDIAGEN_REPOSITORY_URL); `pnpm release` starts with `release-metadata.mjs guard`, which refuses
// to publish anywhere off this machine without it. Each case runs the script as a real process in
// a throwaway copy (the root manifest, the published manifests, the script); pnpm only reads its
// settings there, nothing goes to the network.

/** pnpm as the test command runs it (a binary): the guard asks it where a publish would go. */
const PNPM = process.env.npm_execpath;
/** An address from the range RFC 2606 keeps for examples: never the project's, never resolved here. */
const EXAMPLE_URL = 'https://example.com/acme/mediagen-sdk';

function throwawayCopy(name: string, rootExtra: Record<string, unknown> = {}): string {
  const copy = join(inject('scratch'), 'release-metadata', name);
  mkdirSync(join(copy, 'scripts'), { recursive: true });
  const root = readJson(join(ROOT, 'package.json'));
  writeFileSync(join(copy, 'package.json'), `${JSON.stringify({ ...root, ...rootExtra }, null, 2)}\n`);
  cpSync(join(ROOT, 'scripts', 'release-metadata.mjs'), join(copy, 'scripts', 'release-metadata.mjs'));
  for (const { dir, pkg } of publishedPackages()) {
    mkdirSync(join(copy, relative(ROOT, dir)), { recursive: true });
    writeFileSync(join(copy, relative(ROOT, dir), 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  }
  return copy;
}

function script(copy: string, command: string, env: Record<string, string | undefined> = {}) {
  return run(process.execPath, ['scripts/release-metadata.mjs', command], {
    cwd: copy,
    // No user or global .npmrc may decide the registry: only what each case sets.
    env: { npm_execpath: PNPM, NPM_CONFIG_USERCONFIG: join(copy, 'no-user-npmrc'), MEDIAGEN_REPOSITORY_URL: undefined, ...env },
    timeoutMs: 30_000,
    allowFailure: true,
  });
}

describe('release metadata: the public address', () => {
  it('the workspace has no public address yet, and no published manifest carries one', () => {
    expect(readJson(join(ROOT, 'package.json')).publicRepository).toBeNull();
    expect(repositoryUrl({ env: {} })).toBeUndefined();
    expect(staleManifests(undefined)).toEqual([]);
    for (const { pkg } of publishedPackages()) for (const field of OWNED_FIELDS) expect(pkg[field], `${pkg.name}.${field}`).toBeUndefined();
  });

  it('every published package has its license, public access, and provenance left to the release job', () => {
    for (const { pkg } of publishedPackages()) {
      expect(pkg.license, pkg.name).toBe('MIT');
      // Provenance comes from the release job (PNPM_CONFIG_PROVENANCE): pnpm ignores this field, and
      // npm with it set fails every publish made outside CI (a local-registry rehearsal, by hand).
      expect(pkg.publishConfig, pkg.name).toEqual({ access: 'public' });
    }
  });

  it('pnpm release refuses registry.npmjs.org while the address is unset, and says what to do', async () => {
    expect(PNPM, 'run under pnpm (pnpm release:check), which the guard asks for its registry').toMatch(/pnpm/);
    const copy = throwawayCopy('unset');
    const result = await script(copy, 'guard', { PNPM_CONFIG_REGISTRY: 'https://registry.npmjs.org/' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refusing to publish to https://registry.npmjs.org/: the project has no public address yet');
    expect(result.stderr).toContain('publicRepository');
    // And `pnpm release` itself stops there, before building or testing anything.
    expect(readJson(join(ROOT, 'package.json')).scripts?.release).toMatch(/^node scripts\/release-metadata\.mjs guard && /);
  });

  it('refuses any registry off this machine, also one set for the @mediagen scope only', async () => {
    const copy = throwawayCopy('scoped');
    writeFileSync(join(copy, '.npmrc'), '@mediagen:registry=https://npm.example.com/\n');
    const result = await script(copy, 'guard', { PNPM_CONFIG_REGISTRY: 'http://127.0.0.1:4873/' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refusing to publish to https://npm.example.com/');
  });

  it('allows a registry on this machine without an address, and refuses the stand-in anywhere else', async () => {
    const copy = throwawayCopy('local');
    for (const registry of ['http://127.0.0.1:4873/', 'http://localhost:4873/']) {
      const local = await script(copy, 'guard', { PNPM_CONFIG_REGISTRY: registry });
      expect(local.stderr).toBe('');
      expect(local.code).toBe(0);
    }
    const standIn = await script(copy, 'guard', {
      PNPM_CONFIG_REGISTRY: 'https://registry.npmjs.org/',
      MEDIAGEN_REPOSITORY_URL: STAND_IN_REPOSITORY_URL,
    });
    expect(standIn.code).toBe(1);
    expect(standIn.stderr).toContain('is the stand-in address');
  });

  it('writes repository, homepage and bugs from the one setting, and the guard lets a publish go only once they are written', async () => {
    const copy = throwawayCopy('written', { publicRepository: `${EXAMPLE_URL}.git` });
    const before = await script(copy, 'guard', { PNPM_CONFIG_REGISTRY: 'https://registry.npmjs.org/' });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain(`do not carry ${EXAMPLE_URL}`);
    const write = await script(copy, 'write');
    expect(write.code).toBe(0);
    for (const { dir, pkg } of publishedPackages()) {
      const written = readJson<PackageJson>(join(copy, relative(ROOT, dir), 'package.json'));
      const folder = relative(join(ROOT, 'packages'), dir);
      expect(written.repository, pkg.name).toEqual({ type: 'git', url: `git+${EXAMPLE_URL}.git`, directory: `packages/${folder}` });
      expect(written.homepage).toBe(`${EXAMPLE_URL}/tree/main/packages/${folder}#readme`);
      expect(written.bugs).toEqual({ url: `${EXAMPLE_URL}/issues` });
      // Nothing else in the manifest moved.
      const { repository, homepage, bugs, ...rest } = written;
      expect(rest).toEqual(pkg);
    }
    expect((await script(copy, 'check')).code).toBe(0);
    const after = await script(copy, 'guard', { PNPM_CONFIG_REGISTRY: 'https://registry.npmjs.org/' });
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    // The environment's setting wins over the file's: the manifests no longer match it.
    const other = await script(copy, 'check', { MEDIAGEN_REPOSITORY_URL: 'https://example.com/acme/other' });
    expect(other.code).toBe(1);
  });

  it('refuses a setting that is not a repository web address', async () => {
    const copy = throwawayCopy('bad');
    for (const bad of [
      'git@github.com:acme/sdk.git',
      'http://example.com/acme/sdk',
      'https://user:token@example.com/acme/sdk',
      'https://example.com/acme',
    ]) {
      const result = await script(copy, 'write', { MEDIAGEN_REPOSITORY_URL: bad });
      expect(result.code, bad).toBe(1);
      expect(result.stderr).toContain('MEDIAGEN_REPOSITORY_URL');
      expect(result.stderr).not.toContain('token');
    }
    expect(readJson(join(copy, 'packages', 'core', 'package.json')).repository).toBeUndefined();
  });
});
