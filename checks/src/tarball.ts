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
  return files.filter((file) => !allowed.test(file) || (testLike.test(file) && !template.test(file)));
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
