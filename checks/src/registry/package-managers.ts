import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_BINS } from './tools';
import type { LocalRegistry } from './verdaccio';

/** A package manager as users run it; Yarn Berry twice, once per linker. */
export type PackageManager = 'npm' | 'pnpm' | 'yarn-pnp' | 'yarn-nm' | 'bun';

export const PACKAGE_MANAGERS: PackageManager[] = ['npm', 'pnpm', 'yarn-pnp', 'yarn-nm', 'bun'];

export const PM_TITLES: Record<PackageManager, string> = {
  npm: 'npm',
  pnpm: 'pnpm',
  'yarn-pnp': 'Yarn Berry (PnP)',
  'yarn-nm': 'Yarn Berry (node_modules)',
  bun: 'Bun',
};

export function binOf(pm: PackageManager): string {
  return pm === 'yarn-pnp' || pm === 'yarn-nm' ? TOOL_BINS.yarn : TOOL_BINS[pm];
}

/**
 * The files that point a project at the local registry, one per tool, as a user configures a
 * private registry: `.npmrc` (npm, pnpm), `.yarnrc.yml` (Yarn Berry: its linker, plain http to
 * 127.0.0.1 allowed, and installs that may write the lockfile even when CI=true), `bunfig.toml`.
 */
export function configureProject(dir: string, pm: PackageManager, registry: LocalRegistry): void {
  writeFileSync(join(dir, '.npmrc'), `registry=${registry.url}\n`);
  if (pm === 'yarn-pnp' || pm === 'yarn-nm') {
    const yarnrc = [
      `npmRegistryServer: "${registry.url.replace(/\/$/, '')}"`,
      'unsafeHttpWhitelist: ["127.0.0.1"]',
      `nodeLinker: ${pm === 'yarn-pnp' ? 'pnp' : 'node-modules'}`,
      'enableImmutableInstalls: false',
      'enableTelemetry: false',
      // Yarn's global folder is keyed by host, not port, and our versions are published anew by
      // every run: a previous run's registry (another port on 127.0.0.1) left listings whose
      // tarball URLs point at a dead port (ECONNREFUSED), and its cache kept another run's
      // @mediagen/core@0.2.0 archive (its changelog names that run's commit), which a fresh install
      // took without a checksum to compare and `yarn up` then refused ("doesn't match the
      // expected checksum"). Metadata and archives are the run's own.
      'enableGlobalCache: false',
      `globalFolder: ${JSON.stringify(join(registry.dir, 'yarn-global'))}`,
      `cacheFolder: ${JSON.stringify(join(registry.dir, 'yarn-cache'))}`,
      // Yarn 4.18 quarantines versions younger than its minimal age: a release is installed the
      // minute it is out here, so ours are pre-approved (a user taking a fresh release does the same).
      'npmPreapprovedPackages: ["@mediagen/*", "create-mediagen"]',
      '',
    ];
    writeFileSync(join(dir, '.yarnrc.yml'), yarnrc.join('\n'));
    // An empty lockfile marks the folder as a project of its own (not part of one above it).
    writeFileSync(join(dir, 'yarn.lock'), '');
  }
  if (pm === 'pnpm') {
    // pnpm 12 refuses an install whose dependencies' build scripts were not reviewed: the
    // frameworks' (esbuild, sharp, @swc/core, @nestjs/core's postinstall) are not needed to run.
    // pnpm 12, like Yarn, holds back versions younger than its minimum release age: `pnpm update`
    // kept 0.2.0 with 0.2.1 out. Ours are excluded, as a user taking a fresh release does.
    writeFileSync(
      join(dir, 'pnpm-workspace.yaml'),
      "strictDepBuilds: false\nminimumReleaseAgeExclude:\n  - '@mediagen/*'\n  - create-mediagen\n",
    );
  }
  if (pm === 'bun') writeFileSync(join(dir, 'bunfig.toml'), `[install]\nregistry = "${registry.url}"\n`);
}

/** `install`, as each tool spells it for a project with no lockfile yet. */
export function installArgs(pm: PackageManager): string[] {
  if (pm === 'npm') return ['install', '--no-audit', '--no-fund', '--loglevel=error'];
  if (pm === 'pnpm') return ['install', '--reporter=append-only'];
  return ['install'];
}

/** `run <script> [args]`: npm wants `--` before the script's own arguments. */
export function runArgs(pm: PackageManager, script: string, args: string[] = []): string[] {
  return pm === 'npm' ? ['run', '--silent', script, '--', ...args] : ['run', script, ...args];
}

/** The upgrade a user runs after a patch release: within the ranges the project declares. */
export function updateArgs(pm: PackageManager): string[] {
  if (pm === 'npm') return ['update', '--no-audit', '--no-fund', '--loglevel=error'];
  if (pm === 'yarn-pnp' || pm === 'yarn-nm') return ['up', '@mediagen/*'];
  return ['update'];
}

/** `npm create mediagen@latest …` in each tool's spelling; `-- --template` only where npm needs it. */
export function createArgs(pm: PackageManager, dir: string, template: string): string[] {
  // Without a terminal npm would ask before fetching create-mediagen, and stop: `--yes` answers it.
  if (pm === 'npm') return ['create', '--yes', 'mediagen@latest', dir, '--', '--template', template];
  return ['create', 'mediagen', dir, '--template', template];
}

/** Environment for every tool: no telemetry, no prompts, each tool's cache kept between runs. */
export const PM_ENV = {
  NEXT_TELEMETRY_DISABLED: '1',
  YARN_ENABLE_TELEMETRY: '0',
  YARN_ENABLE_PROGRESS_BARS: '0',
  DO_NOT_TRACK: '1',
};
