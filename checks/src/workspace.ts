import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  files?: string[];
  [key: string]: unknown;
}

export interface WorkspacePackage {
  dir: string;
  pkg: PackageJson;
}

export function readJson<T = PackageJson>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

function packagesUnder(parent: string): WorkspacePackage[] {
  const base = join(ROOT, parent);
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .map((name) => join(base, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: readJson(join(dir, 'package.json')) }));
}

/** Every package users install: the non-private ones under packages/ (picked up as they land). */
export function publishedPackages(): WorkspacePackage[] {
  return packagesUnder('packages').filter(({ pkg }) => pkg.private !== true);
}

/** The private ones (apps, bench, conformance, these checks, the runtime matrix, …): never versioned, never published. */
export function privatePackages(): WorkspacePackage[] {
  const single = ['bench', 'checks', 'runtimes', 'soak', 'docs', 'workflow-lint']
    .map((name) => join(ROOT, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: readJson(join(dir, 'package.json')) }));
  return [...packagesUnder('packages'), ...packagesUnder('packages/nestjs/compat'), ...packagesUnder('apps'), ...single].filter(
    ({ pkg }) => pkg.private === true,
  );
}

/** Every copy-pasteable sample app: apps/*-sample. */
export function sampleApps(): WorkspacePackage[] {
  return packagesUnder('apps').filter(({ dir }) => dir.endsWith('-sample'));
}

export function isPublished(name: string): boolean {
  return publishedPackages().some(({ pkg }) => pkg.name === name);
}
