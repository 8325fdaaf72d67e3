// Are the published tarballs byte-identical across two builds of the same commit?
//
// Two clean clones of the commit (HEAD) at two different paths (so an absolute path baked into
// a build shows), each installed from the lockfile (offline: the store already holds it), built
// with turbo's cache bypassed (`--force`, a real build each time) for the published packages and
// what they need, then each published package packed with `pnpm pack` (what `pnpm publish`
// uploads). Exits 1 naming each tarball that differs and, inside it, each file that differs.
//
//   node scripts/reproducible-tarballs.mjs [--only <name>,<name>] [--keep]
//
// `--only` builds and compares only those packages (and builds what they depend on). Each build
// is a full one: minutes on two cores, so `pnpm test` runs the cheaper checks in
// checks/test/reproducible-tarballs.test.ts and this script is the full one (RELEASING.md).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pnpmCommand } from './release-metadata.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function sh(command, args, cwd, extraEnv = {}) {
  // turbo looks pnpm up on PATH: put the one running this first (npx's pnpm is on no PATH).
  const pnpm = pnpmCommand();
  const PATH = pnpm.includes('/') ? `${dirname(pnpm)}${delimiter}${process.env.PATH ?? ''}` : process.env.PATH;
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH, TURBO_TELEMETRY_DISABLED: '1', NEXT_TELEMETRY_DISABLED: '1', ...extraEnv },
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** The published packages of a checkout: `{ name, dir }`. */
export function publishedIn(root) {
  return readdirSync(join(root, 'packages'))
    .sort()
    .map((dir) => join(root, 'packages', dir))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ pkg }) => pkg.private !== true)
    .map(({ dir, pkg }) => ({ name: pkg.name, dir }));
}

/** A clean clone of `commit`, installed, its published packages built and packed: name -> tarball path. */
export function buildAndPack(commit, where, only) {
  const pnpm = pnpmCommand();
  sh('git', ['clone', '--quiet', '--no-checkout', ROOT, where], ROOT);
  sh('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit], where);
  sh(pnpm, ['install', '--frozen-lockfile', '--offline', '--reporter=silent'], where);
  const packages = publishedIn(where).filter(({ name }) => !only || only.includes(name));
  sh(
    pnpm,
    ['turbo', 'run', 'build', '--force', '--concurrency=2', '--output-logs=errors-only', ...packages.map(({ name }) => `--filter=${name}`)],
    where,
  );
  const out = join(where, '.tarballs');
  mkdirSync(out);
  const tarballs = {};
  for (const { name, dir } of packages) {
    const packed = sh(pnpm, ['pack', '--pack-destination', out, '--json'], dir);
    tarballs[name] = JSON.parse(packed.slice(packed.indexOf('{'))).filename;
  }
  return tarballs;
}

/** Files that differ between two tarballs (unpacked), or [] when they are byte-identical. */
export function tarballDifferences(a, b, scratch) {
  if (readFileSync(a).equals(readFileSync(b))) return [];
  const unpack = (file, into) => {
    mkdirSync(into, { recursive: true });
    sh('tar', ['-xzf', file, '-C', into], scratch);
    const walk = (dir) =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    return new Map(walk(into).map((f) => [f.slice(into.length + 1), readFileSync(f)]));
  };
  const left = unpack(a, join(scratch, 'a'));
  const right = unpack(b, join(scratch, 'b'));
  const names = [...new Set([...left.keys(), ...right.keys()])].sort();
  const differing = names.filter((n) => !left.get(n)?.equals(right.get(n) ?? Buffer.alloc(0)) || !right.has(n));
  // Same files, same bytes, different tarball: the archive itself (entry order, times, modes, gzip header).
  return differing.length ? differing : ['(the archive: entry order, times, modes or gzip header)'];
}

function main() {
  const args = process.argv.slice(2);
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? args[onlyAt + 1]?.split(',') : undefined;
  const started = Date.now();
  const commit = sh('git', ['rev-parse', 'HEAD'], ROOT).trim();
  const scratch = mkdtempSync(join(tmpdir(), 'mediagen-reproducible-'));
  // Two paths of different lengths and depths: a path baked into a build cannot come out the same.
  const first = join(scratch, 'a');
  const second = join(scratch, 'second-build', 'b');
  try {
    const a = buildAndPack(commit, first, only);
    const afterFirst = Date.now();
    const b = buildAndPack(commit, second, only);
    const problems = [];
    for (const name of Object.keys(a)) {
      const diff = tarballDifferences(a[name], b[name], join(scratch, 'diff', name.replace('/', '__')));
      if (diff.length) problems.push(`${name}: ${diff.join(', ')}`);
    }
    const seconds = (ms) => `${Math.round(ms / 1000)} s`;
    const timing = `two builds of ${commit.slice(0, 7)}: ${seconds(afterFirst - started)} + ${seconds(Date.now() - afterFirst)}`;
    if (problems.length) {
      console.error(
        `reproducible-tarballs: ${problems.length} of ${Object.keys(a).length} tarballs differ (${timing}):\n  ${problems.join('\n  ')}`,
      );
      process.exitCode = 1;
    } else {
      console.log(`reproducible-tarballs: all ${Object.keys(a).length} tarballs byte-identical (${timing})`);
    }
  } finally {
    if (args.includes('--keep')) console.log(`kept in ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
