import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { tarballDifferences } from '../../scripts/reproducible-tarballs.mjs';
import { run } from '../src/run';
import { unpack } from '../src/tarball';
import { publishedPackages, ROOT } from '../src/workspace';

// The published tarballs are byte-identical across two builds of the same commit. The full proof
// is `node scripts/reproducible-tarballs.mjs`: two clean clones at two paths, each fully built
// (turbo's cache bypassed) and packed, compared byte for byte; minutes on two cores, so it is run
// by hand and before a release (RELEASING.md), and its last result is in the report of the change
// that added it. Here, within seconds of `pnpm test`:
//   1. every tarball packed a second time from the same build is byte-identical (the archive:
//      entry order, times, modes, gzip header);
//   2. no file in any tarball holds the path it was built at (the workspace's or the temp dir's);
//   3. REBUILT, rebuilt from the same sources copied to another path, packs to the same bytes as
//      the workspace's own build: core (the most entries, shared chunks and declaration chunks
//      whose names are content hashes) and create-mediagen (its templates copied in by a script).

const tarballs = inject('tarballs');
const scratch = inject('scratch');
const PNPM = process.env.npm_execpath;
const REBUILT = ['@mediagen/core', 'create-mediagen'];

async function packInto(dir: string, dest: string): Promise<string> {
  const { stdout } = await run(PNPM ?? 'pnpm', ['pack', '--pack-destination', dest, '--json'], { cwd: dir, timeoutMs: 60_000 });
  return (JSON.parse(stdout.slice(stdout.indexOf('{'))) as { filename: string }).filename;
}

describe('reproducible tarballs', () => {
  it('packing the same build again gives byte-identical tarballs', async () => {
    expect(PNPM, 'run under pnpm (pnpm release:check)').toMatch(/pnpm/);
    const dest = join(scratch, 'repacked');
    mkdirSync(dest, { recursive: true });
    const differing: string[] = [];
    for (const { dir, pkg } of publishedPackages()) {
      const again = await packInto(dir, dest);
      const diff = tarballDifferences(tarballs[pkg.name] as string, again, join(scratch, 'repack-diff', pkg.name.replace('/', '__')));
      if (diff.length) differing.push(`${pkg.name}: ${diff.join(', ')}`);
    }
    expect(differing).toEqual([]);
  });

  it('no tarball holds a path of the machine that built it', async () => {
    const leaks: string[] = [];
    const paths = [ROOT.replace(/\/$/, ''), scratch];
    for (const { pkg } of publishedPackages()) {
      const { root, files } = await unpack(tarballs[pkg.name] as string, join(scratch, 'path-scan', pkg.name.replace('/', '__')));
      for (const file of files) {
        const text = readFileSync(join(root, file), 'latin1');
        for (const path of paths) if (text.includes(path)) leaks.push(`${pkg.name}: ${file} holds ${path}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it.each(REBUILT)('%s rebuilt from its sources at another path packs to the same bytes', async (name) => {
    const found = publishedPackages().find(({ pkg }) => pkg.name === name);
    if (!found) throw new Error(`${name} is not a published package`);
    // Another root: the package's sources and what its build reads above it; its dependencies
    // (already built) through its own node_modules, linked, as the workspace's install made them.
    const other = join(scratch, 'rebuilt', name.replace('/', '__'), 'at', 'another', 'depth');
    const rel = relative(ROOT, found.dir);
    const copy = join(other, rel);
    const skip = new Set(['node_modules', 'dist', '.turbo', 'test', 'CHANGELOG.md.bak']);
    mkdirSync(copy, { recursive: true });
    for (const entry of readdirSync(found.dir).filter((e) => !skip.has(e)))
      cpSync(join(found.dir, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(found.dir, 'node_modules'), join(copy, 'node_modules'), 'dir');
    for (const shared of readdirSync(ROOT).filter((e) => /^tsconfig.*\.json$/.test(e))) cpSync(join(ROOT, shared), join(other, shared));
    if (existsSync(join(ROOT, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(other, 'node_modules'), 'dir');
    // create-mediagen's templates are the sample apps (and their shared files), with the
    // workspace's versions read from every manifest, at build time.
    if (name === 'create-mediagen') {
      const generated = /\/(node_modules|\.next|dist|\.turbo|data|coverage|demo-output|test-output)(\/|$)/;
      cpSync(join(ROOT, 'apps'), join(other, 'apps'), { recursive: true, filter: (src) => !generated.test(src) });
      for (const dir of readdirSync(join(ROOT, 'packages'))) {
        const manifest = join(ROOT, 'packages', dir, 'package.json');
        if (!existsSync(manifest) || existsSync(join(other, 'packages', dir, 'package.json'))) continue;
        mkdirSync(join(other, 'packages', dir), { recursive: true });
        cpSync(manifest, join(other, 'packages', dir, 'package.json'));
      }
    }
    await run(PNPM ?? 'pnpm', ['run', 'build'], { cwd: copy, timeoutMs: 240_000 });
    const dest = join(scratch, 'rebuilt-tarballs');
    mkdirSync(dest, { recursive: true });
    const again = await packInto(copy, dest);
    expect(tarballDifferences(tarballs[name] as string, again, join(scratch, 'rebuild-diff', name.replace('/', '__')))).toEqual([]);
  });
});
