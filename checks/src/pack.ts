import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run';
import { publishedPackages } from './workspace';

/** `pnpm pack` of every published package (what `pnpm publish` uploads: `workspace:` ranges rewritten). */
export async function packAll(dest: string): Promise<Record<string, string>> {
  const tarballs: Record<string, string> = {};
  for (const { dir, pkg } of publishedPackages()) {
    if (!existsSync(join(dir, 'dist'))) throw new Error(`${pkg.name} has no dist/: run \`pnpm build\` first`);
    // pnpm's own environment is kept here on purpose: this is the workspace's packer.
    const { stdout } = await run('pnpm', ['pack', '--pack-destination', dest, '--json'], { cwd: dir, env: process.env, timeoutMs: 60_000 });
    const { filename } = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { filename: string };
    tarballs[pkg.name] = filename;
  }
  return tarballs;
}
