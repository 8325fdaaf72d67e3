import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run';
import { publishedPackages } from './workspace';

/** The package a user runs as `npm create mediagen`. */
export const CREATE_PACKAGE = 'create-mediagen';

/**
 * `npm create mediagen <dir> -- --template <template>` as a user runs it, with the package taken
 * from its packed tarball instead of the registry: `npm create x` is `npm exec create-x`, so
 * this is `npm exec --package <tgz> -- create-mediagen …`, run in `parent` (outside the workspace).
 */
export async function createFromTarball(tarball: string, parent: string, dir: string, template: string): Promise<string> {
  mkdirSync(parent, { recursive: true });
  await run('npm', ['exec', '--yes', '--package', tarball, '--', CREATE_PACKAGE, dir, '--template', template], {
    cwd: parent,
    timeoutMs: 120_000,
  });
  return join(parent, dir);
}

/**
 * Points the written app's `@mediagen/*` dependencies at the packed tarballs (there is no
 * release on the registry to install yet), after checking each is the published range of the
 * package's current version, `^<version>`, which is what users get. Returns the ranges found.
 */
export function useTarballs(appDir: string, tarballs: Record<string, string>): Record<string, string> {
  const versions = new Map(publishedPackages().map(({ pkg }) => [pkg.name, pkg.version]));
  const file = join(appDir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string> | undefined>;
  const found: Record<string, string> = {};
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const deps = pkg[field];
    for (const [name, range] of Object.entries(deps ?? {})) {
      const tarball = tarballs[name];
      if (!deps || !tarball) continue;
      if (range !== `^${versions.get(name)}`) throw new Error(`${name} is "${range}" in the written app, not ^${versions.get(name)}`);
      found[name] = range;
      deps[name] = `file:${tarball}`;
    }
  }
  // A published package can also come in through another one (@mediagen/next depends on
  // @mediagen/react): npm must take every one of them from its tarball, never the registry.
  const overrides: Record<string, string> = { ...(pkg.overrides ?? {}) };
  for (const name of versions.keys()) if (tarballs[name]) overrides[name] = `file:${tarballs[name]}`;
  pkg.overrides = overrides;
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  return found;
}
