import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run';

/** As a user installs: plain npm, the registry (cache first), no audit or funding noise. */
export const NPM_INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

/** The tool versions the consumers install from the registry (the ones the workspace builds with). */
export const TOOLS = {
  typescript: '6.0.3',
  '@types/node': '^20.19.0',
  esbuild: '0.28.2',
} as const;

export interface ProjectSpec {
  type?: 'module' | 'commonjs';
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

/** A clean npm project outside the workspace, installed. `tarballs` entries become `file:` deps. */
export async function npmProject(dir: string, spec: ProjectSpec): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const pkg = { name: 'mediagen-consumer', version: '1.0.0', private: true, type: spec.type ?? 'module', ...spec };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  await npmInstall(dir);
  return dir;
}

export async function npmInstall(dir: string, env: Record<string, string> = {}): Promise<void> {
  await run('npm', NPM_INSTALL, { cwd: dir, env, timeoutMs: 300_000 });
}

/** `file:` specs for the given packages' tarballs. */
export function fileDeps(tarballs: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, `file:${tarballs[name]}`]));
}
