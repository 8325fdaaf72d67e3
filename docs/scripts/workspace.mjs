// The workspace's published packages, read from their manifests: the API reference covers each
// one's `exports` (what users import), so a package that lands is documented without an edit here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DOCS = fileURLToPath(new URL('..', import.meta.url));

/** `{ name, dir, version, description, exports }` for every non-private package under packages/. */
export function publishedPackages() {
  const base = join(ROOT, 'packages');
  return readdirSync(base)
    .map((name) => join(base, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ pkg }) => pkg.private !== true)
    .map(({ dir, pkg }) => ({ name: pkg.name, dir, version: pkg.version, description: pkg.description ?? '', exports: pkg.exports ?? {} }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The typed entry points of a package: `[{ specifier, types }]`, one per `exports` subpath with
 * an ESM `types` file (`./package.json` and bin-only packages have none).
 */
export function typedEntries({ name, dir, exports }) {
  return Object.entries(exports)
    .map(([subpath, target]) => ({ subpath, types: esmTypes(target) }))
    .filter(({ types }) => types !== undefined)
    .map(({ subpath, types }) => ({
      specifier: subpath === '.' ? name : `${name}/${subpath.replace(/^\.\//, '')}`,
      types: join(dir, types),
    }));
}

function esmTypes(target) {
  if (typeof target !== 'object' || target === null) return undefined;
  if (typeof target.import === 'object' && typeof target.import?.types === 'string') return target.import.types;
  if (typeof target.types === 'string') return target.types;
  return undefined;
}
