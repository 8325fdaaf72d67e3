import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run';
import { ROOT } from './workspace';

/** Native modules installed through prebuild-install that the sample apps use. */
const NATIVE = ['better-sqlite3'];

/**
 * prebuild-install downloads a prebuilt binary from GitHub, which this machine cannot reach, so
 * every npm install of better-sqlite3 compiles it from source (minutes on two cores). The
 * workspace's install already compiled the same module: pack that binary as the prebuild
 * tarball prebuild-install looks for, and point it there (`npm_config_<name>_local_prebuilds`).
 * When the registry resolves another version than the workspace's, the file name does not match
 * and npm compiles it as before: slower, never wrong.
 */
export async function seedLocalPrebuilds(dir: string): Promise<Record<string, string>> {
  mkdirSync(dir, { recursive: true });
  const env: Record<string, string> = {};
  const store = join(ROOT, 'node_modules', '.pnpm');
  if (!existsSync(store)) return env;
  for (const name of NATIVE) {
    for (const entry of readdirSync(store).filter((e) => e.startsWith(`${name}@`))) {
      const pkgDir = join(store, entry, 'node_modules', name);
      const binary = join(pkgDir, 'build', 'Release', `${name.replace(/-/g, '_')}.node`);
      if (!existsSync(binary)) continue;
      const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
      const file = `${name}-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
      await run('tar', ['-czf', join(dir, file), '-C', pkgDir, `build/Release/${name.replace(/-/g, '_')}.node`], {
        cwd: pkgDir,
        timeoutMs: 30_000,
      });
      env[`npm_config_${name.replace(/[^a-zA-Z0-9]/g, '_')}_local_prebuilds`] = dir;
    }
  }
  return env;
}
