import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { run } from './run';

/** Unpacks a tarball into `dir` (npm tarballs hold one `package/` folder) and lists its files. */
export async function unpack(tarball: string, dir: string): Promise<{ root: string; files: string[] }> {
  mkdirSync(dir, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', dir], { cwd: dir, timeoutMs: 30_000 });
  const root = join(dir, 'package');
  return { root, files: walk(root).map((file) => relative(root, file).split('\\').join('/')) };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** What a package may ship: its build, its docs and its manifest. */
export function unexpectedFiles(files: string[]): string[] {
  const allowed = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+)$/;
  const testLike = /(^|\/)(test|tests|__tests__|fixtures?)\/|\.(test|spec)\.[cm]?[jt]sx?$/;
  // An app template (create-mediagen's dist/templates/<name>/) is a whole app: its tests are
  // part of what the user gets, not the package's own.
  const template = /^dist\/templates\/[^/]+\/./;
  // Build and editor leftovers: never part of what a user runs, even inside dist/.
  const junk = /(^|\/)(\.DS_Store|\.env(\..*)?|[^/]*\.tsbuildinfo|[^/]*\.log|\.turbo\/.*|\.cache\/.*)$/;
  return files.filter(
    (file) => !allowed.test(file) || (testLike.test(file) && !template.test(file)) || (junk.test(file) && !template.test(file)),
  );
}

/**
 * `//# sourceMappingURL=` comments that name a map the tarball does not ship: a debugger (and
 * Node's --enable-source-maps) would look for it and warn. Inline (`data:`) maps are fine.
 */
export function missingSourceMaps(root: string, files: string[]): string[] {
  const shipped = new Set(files);
  const problems: string[] = [];
  for (const file of files.filter((f) => /\.(c|m)?js$|\.d\.(c|m)?ts$/.test(f))) {
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(root, file), 'utf8'))?.[1];
    if (url === undefined || url.startsWith('data:')) continue;
    const resolved = join(file.split('/').slice(0, -1).join('/'), url).split('\\').join('/');
    if (!shipped.has(resolved)) problems.push(`${file} -> ${url}`);
  }
  return problems;
}

/**
 * Source map entries that name a path outside the package's own folder (absolute, or `../`
 * above it): the build machine's layout leaking into the tarball, and a tarball that differs
 * with the folder it was built in.
 */
export function foreignSourcePaths(root: string, files: string[]): string[] {
  const problems: string[] = [];
  for (const file of files.filter((f) => f.endsWith('.map'))) {
    const map = JSON.parse(readFileSync(join(root, file), 'utf8')) as { sources?: string[]; sourceRoot?: string };
    const base = file.split('/').slice(0, -1);
    for (const source of [...(map.sources ?? []), ...(map.sourceRoot ? [map.sourceRoot] : [])]) {
      if (/^(\/|[a-z]:[\\/]|file:)/i.test(source)) {
        problems.push(`${file} -> ${source}`);
        continue;
      }
      if (escapes(base.length, source)) problems.push(`${file} -> ${source}`);
    }
  }
  return problems;
}

/**
 * Source maps whose sources a debugger could not show: a source that is neither shipped in the
 * tarball nor embedded (`sourcesContent`).
 */
export function danglingSourceMaps(root: string, files: string[]): string[] {
  const shipped = new Set(files);
  const problems: string[] = [];
  for (const file of files.filter((f) => f.endsWith('.map'))) {
    const map = JSON.parse(readFileSync(join(root, file), 'utf8')) as { sources?: string[]; sourcesContent?: (string | null)[] };
    const base = file.split('/').slice(0, -1).join('/');
    (map.sources ?? []).forEach((source, i) => {
      const resolved = join(base, source).split('\\').join('/');
      if (!shipped.has(resolved) && typeof map.sourcesContent?.[i] !== 'string') problems.push(`${file} -> ${source}`);
    });
  }
  return problems;
}

/** Whether following `path` from a folder `depth` levels below the package root ever leaves it. */
function escapes(depth: number, path: string): boolean {
  let level = depth;
  for (const part of path.split(/[\\/]/)) {
    if (part === '..') level--;
    else if (part !== '.' && part !== '') level++;
    if (level < 0) return true;
  }
  return false;
}
