import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { STAND_IN_REPOSITORY_URL, writeMetadata } from '../../../scripts/release-metadata.mjs';
import { run } from '../run';
import { type PackageJson, publishedPackages, ROOT, readJson } from '../workspace';
import { TOOL_BINS } from './tools';
import { type LocalRegistry, npmrc } from './verdaccio';

/** A release's outcome: the versions it published, and the tags it made. */
export interface Release {
  versions: Record<string, string>;
  tags: string[];
}

/** git in the throwaway copy, with an identity of its own (the machine may have none). */
function git(copy: string, ...args: string[]) {
  return run('git', ['-c', 'user.email=release@check.invalid', '-c', 'user.name=release-check', ...args], { cwd: copy, timeoutMs: 60_000 });
}

/**
 * A throwaway copy of the repository as it is on disk (tracked and untracked-but-not-ignored
 * files, so a run before a commit checks what is there), its own git history of one commit,
 * installed with the workspace's pnpm from the store. Nothing in it touches the real repository.
 */
export async function throwawayRepo(dest: string): Promise<string> {
  const { stdout } = await run('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, timeoutMs: 60_000 });
  for (const file of stdout.split('\0').filter(Boolean)) {
    const target = join(dest, file);
    mkdirSync(dirname(target), { recursive: true });
    try {
      copyFileSync(join(ROOT, file), target);
    } catch (error) {
      // A tracked file deleted in the working tree is not part of what is checked.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  await git(dest, 'init', '-q');
  await git(dest, 'add', '-A');
  await git(dest, 'commit', '-qm', 'the working tree, for the release check');
  await run(TOOL_BINS.pnpm, ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=silent'], {
    cwd: dest,
    timeoutMs: 600_000,
  });
  return dest;
}

/** Writes a changeset into the copy, as a contributor would. */
export function addChangeset(copy: string, file: string, releases: Record<string, 'major' | 'minor' | 'patch'>, summary: string): void {
  const frontmatter = Object.entries(releases).map(([name, kind]) => `"${name}": ${kind}`);
  writeFileSync(join(copy, '.changeset', file), `---\n${frontmatter.join('\n')}\n---\n\n${summary}\n`);
}

/**
 * Which manifests a package's build output reads: its own version (core's User-Agent, mcp's
 * server version: the tsup config reads `package.json`), every package's version
 * (create-mediagen's templates: a script its build runs reads them), or none. Only the first two
 * change with `changeset version`; the rest build the same bytes from the same sources (compared
 * file by file once: every other package's dist in the copy after `changeset version` and a full
 * build equalled the workspace's).
 */
function manifestsRead(dir: string, pkg: PackageJson): 'own' | 'all' | 'none' {
  const reads = (file: string) => existsSync(file) && readFileSync(file, 'utf8').includes('package.json');
  const scripts = [...(pkg.scripts?.build ?? '').matchAll(/node\s+(\S+\.m?js)/g)].map((m) => join(dir, m[1]!));
  if (scripts.some(reads)) return 'all';
  return ['tsup.config.ts', 'tsup.config.mjs', 'tsup.config.js'].some((name) => reads(join(dir, name))) ? 'own' : 'none';
}

/**
 * The build between `changeset version` and `changeset publish`, as RELEASING.md's `pnpm
 * release` runs it, without building again what is already built: a package whose output reads
 * no manifest gets the workspace's dist (built from these same sources by the `turbo run build`
 * that `pnpm release:check` runs first, and packed by the other release checks); one that reads
 * manifests is built in the copy when a version it reads changed (in dependency order).
 */
async function build(copy: string, changed: Set<string>): Promise<void> {
  const rebuild: string[] = [];
  for (const { dir, pkg } of publishedPackages()) {
    const target = join(copy, relative(ROOT, dir), 'dist');
    const reads = manifestsRead(dir, pkg);
    const stale = !existsSync(target) || (reads === 'own' && changed.has(pkg.name)) || (reads === 'all' && changed.size > 0);
    if (reads !== 'none' || !existsSync(join(dir, 'dist'))) {
      if (stale) rebuild.push(pkg.name);
    } else if (!existsSync(target)) cpSync(join(dir, 'dist'), target, { recursive: true });
  }
  if (rebuild.length === 0) return;
  await run(
    TOOL_BINS.pnpm,
    [...rebuild.flatMap((name) => ['--filter', name]), '--workspace-concurrency=2', '--reporter=append-only', 'run', 'build'],
    { cwd: copy, env: { NEXT_TELEMETRY_DISABLED: '1' }, timeoutMs: 900_000 },
  );
}

/** Every published package's version in the copy. */
function versionsIn(copy: string): Record<string, string> {
  return Object.fromEntries(
    publishedPackages().map(({ dir }) => {
      const pkg = readJson<PackageJson>(join(copy, relative(ROOT, dir), 'package.json'));
      return [pkg.name, pkg.version];
    }),
  );
}

/**
 * The release RELEASING.md describes, with only the registry's address changed: `changeset
 * version` (the pending changesets consumed, a "Version Packages" commit), the build, then
 * `changeset publish` (`npm info` per package, `pnpm publish` of each version the registry lacks,
 * a `<package>@<version>` tag for each). `pnpm test` between build and publish is the run this
 * check is part of, so it is not run again here.
 */
export async function versionAndPublish(copy: string, registry: LocalRegistry): Promise<Release> {
  const changeset = join(copy, 'node_modules/.bin/changeset');
  const previous = versionsIn(copy);
  await run(changeset, ['version'], { cwd: copy, timeoutMs: 120_000 });
  const versions = versionsIn(copy);
  // The project has no public address: the copy's manifests get the stand-in (an address that
  // cannot exist), written by the one writer `pnpm release` uses, and only in the copy.
  writeMetadata(STAND_IN_REPOSITORY_URL, { root: copy });
  await git(copy, 'add', '-A');
  await git(copy, 'commit', '-qm', 'Version Packages');
  await build(copy, new Set(Object.keys(versions).filter((name) => versions[name] !== previous[name])));
  // The publish token goes in the copy's .npmrc (pnpm publish reads it), as `npm login` would.
  writeFileSync(join(copy, '.npmrc'), npmrc(registry, true));
  const before = new Set((await git(copy, 'tag', '--list')).stdout.split('\n').filter(Boolean));
  // changesets reads the registry from npm_config_registry (what `pnpm changeset` passes down from .npmrc).
  await run(changeset, ['publish'], { cwd: copy, env: { npm_config_registry: registry.url }, timeoutMs: 600_000 });
  const tags = (await git(copy, 'tag', '--list')).stdout.split('\n').filter((tag) => tag && !before.has(tag));
  return { versions, tags };
}
