import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../run';
import { ROOT } from '../workspace';

/**
 * checks/tools: Verdaccio and the package managers the registry checks use, each pinned, with
 * their own package-lock.json, installed with npm outside the workspace (a `pnpm` or `yarn`
 * bin in the workspace's hoisted .bin would shadow the one the workspace runs). Verdaccio 6.8.0
 * is the last line that runs on Node 20 (6.10 wants 22), with `node-fetch` overridden to 2.7.0.
 */
export const TOOLS_DIR = join(ROOT, 'checks/tools');

const bin = (name: string) => join(TOOLS_DIR, 'node_modules/.bin', name);

/** The binary each package manager runs as, and its pinned version (from checks/tools/package.json). */
export const TOOL_BINS = {
  verdaccio: bin('verdaccio'),
  npm: 'npm',
  pnpm: bin('pnpm'),
  yarn: bin('yarn'),
  bun: join(TOOLS_DIR, 'node_modules/@oven/bun-linux-x64/bin/bun'),
} as const;

/** Installs checks/tools when it is missing or not the locked set; a no-op once done. */
export async function installTools(): Promise<void> {
  const lock = join(TOOLS_DIR, 'package-lock.json');
  const installed = join(TOOLS_DIR, 'node_modules/.package-lock.json');
  if (existsSync(installed) && readFileSync(installed, 'utf8').includes('"verdaccio"') && existsSync(TOOL_BINS.bun)) return;
  if (!existsSync(lock)) throw new Error(`${lock} is missing: run \`npm install\` in checks/tools and commit the lockfile`);
  // `npm install --no-save` from the lock, not `npm ci`: the lock cannot list pnpm's platform
  // binaries for other systems (this registry mirror lacks some), and `npm ci` refuses a lock
  // without them on a fresh clone. The versions are the locked ones; nothing is written back.
  await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: TOOLS_DIR, timeoutMs: 300_000 });
}

/** The versions in use, for the results: `{ npm: '11.6.0', pnpm: '12.21.0', … }`. */
export async function toolVersions(): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const [name, command] of Object.entries(TOOL_BINS)) {
    const { stdout } = await run(command, ['--version'], { cwd: TOOLS_DIR, timeoutMs: 30_000 });
    versions[name] = stdout.trim().replace(/^v/, '');
  }
  return versions;
}
