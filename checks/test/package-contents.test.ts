import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { run } from '../src/run';
import { danglingSourceMaps, foreignSourcePaths, missingSourceMaps, unexpectedFiles, unpack } from '../src/tarball';
import { publishedPackages, ROOT } from '../src/workspace';

const tarballs = inject('tarballs');
const scratch = inject('scratch');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

// The rules themselves, on a made-up package holding each fault once: a check that finds nothing
// in the real tarballs must still be able to find something.
describe('the tarball rules', () => {
  it('catch tests, fixtures, build leftovers, a missing map, a dangling or foreign source', () => {
    const root = join(scratch, 'rules', 'package');
    const write = (file: string, text: string) => {
      mkdirSync(join(root, file, '..'), { recursive: true });
      writeFileSync(join(root, file), text);
    };
    write('dist/index.js', 'export {};\n//# sourceMappingURL=index.js.map\n');
    write('dist/other.js', 'export {};\n//# sourceMappingURL=gone.js.map\n');
    write('dist/inline.js', 'export {};\n//# sourceMappingURL=data:application/json;base64,e30=\n');
    write(
      'dist/index.js.map',
      JSON.stringify({ version: 3, sources: ['../src/index.ts', '/home/ci/work/src/a.ts', '../../../b.ts'], mappings: '' }),
    );
    const files = ['dist/index.js', 'dist/other.js', 'dist/inline.js', 'dist/index.js.map'];
    expect(missingSourceMaps(root, files)).toEqual(['dist/other.js -> gone.js.map']);
    expect(danglingSourceMaps(root, files)).toEqual([
      'dist/index.js.map -> ../src/index.ts',
      'dist/index.js.map -> /home/ci/work/src/a.ts',
      'dist/index.js.map -> ../../../b.ts',
    ]);
    expect(foreignSourcePaths(root, files)).toEqual(['dist/index.js.map -> /home/ci/work/src/a.ts', 'dist/index.js.map -> ../../../b.ts']);
    expect(
      unexpectedFiles([
        'dist/index.js',
        'dist/index.test.js',
        'dist/fixtures/a.json',
        'dist/tsconfig.tsbuildinfo',
        'dist/.DS_Store',
        'src/index.ts',
        'dist/templates/next/test/app.test.ts',
      ]),
    ).toEqual(['dist/index.test.js', 'dist/fixtures/a.json', 'dist/tsconfig.tsbuildinfo', 'dist/.DS_Store', 'src/index.ts']);
  });
});

// What `pnpm publish` would upload, package by package (the tarball is the same one `pnpm pack` makes).
describe.each(publishedPackages().map(({ dir, pkg }) => [pkg.name, pkg, dir] as const))('%s as published', (name, pkg, dir) => {
  const contents = () => unpack(tarballs[name]!, join(scratch, 'unpacked', name.replace('/', '__')));

  it('ships dist, README and the manifest only: no tests, no sources', async () => {
    const { files } = await contents();
    expect(files).toContain('package.json');
    expect(files).toContain('README.md');
    expect(files.some((f) => f.startsWith('dist/'))).toBe(true);
    expect(unexpectedFiles(files)).toEqual([]);
    // Once `changeset version` has written it (from the first release on), users get the changelog.
    if (existsSync(join(dir, 'CHANGELOG.md'))) expect(files).toContain('CHANGELOG.md');
  });

  it('has source maps that never point at a file it does not ship, nor outside the package', async () => {
    const { root, files } = await contents();
    expect(danglingSourceMaps(root, files)).toEqual([]);
    expect(missingSourceMaps(root, files)).toEqual([]);
    expect(foreignSourcePaths(root, files)).toEqual([]);
  });

  it('has its workspace ranges rewritten and every exported file present', async () => {
    const { root, files } = await contents();
    const manifest = (await import(join(root, 'package.json'), { with: { type: 'json' } })).default;
    expect(manifest.version).toBe(pkg.version);
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [dep, range] of Object.entries((manifest[field] ?? {}) as Record<string, string>)) {
        expect(range, `${field}.${dep}`).not.toMatch(/^workspace:/);
      }
    }
    for (const target of exportTargets(manifest.exports).filter((t) => t !== 'package.json')) {
      expect(files, `exports target ./${target}`).toContain(target);
    }
  });

  it('passes publint (strict) and arethetypeswrong on the tarball itself', async () => {
    await run(bin('publint'), ['run', tarballs[name]!, '--strict'], { cwd: scratch, env: process.env, timeoutMs: 60_000 });
    await run(bin('attw'), [tarballs[name]!, '--profile', 'node16', '--format', 'ascii'], {
      cwd: scratch,
      env: process.env,
      timeoutMs: 60_000,
    });
  });
});

/** The files an `exports` map points at (its string leaves, without the leading `./`). */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports.replace(/^\.\//, '')];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(exportTargets);
}
