#!/usr/bin/env node
// Copies a sample app out of the monorepo so it builds and runs on its own with npm:
//   node scripts/copy-sample.mjs apps/express-sample ../my-app [--tarballs <dir>]
// Its `workspace:` dependencies become the published range of each package (`^<version>`),
// or, with --tarballs, the packed tarballs in <dir> (the release checks use that before a
// release exists). Nothing else changes: a copy must work with nothing edited by hand.
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Build output, installs and local state: never part of a copy. */
const SKIP = new Set(['node_modules', 'dist', 'data', '.turbo', '.next', 'coverage', 'demo-output', 'test-output']);
/** The monorepo's own config at a sample's top (they extend the root's, "//"): not part of a copy. */
const MONOREPO_ONLY = new Set(['turbo.json', 'biome.json']);

/** The workspace's packages by name: { dir, version, private }. */
export function workspacePackages(root = ROOT) {
  const found = new Map();
  for (const parent of ['packages', 'apps']) {
    const base = join(root, parent);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      const file = join(base, name, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      found.set(pkg.name, { dir: join(base, name), version: pkg.version, private: pkg.private === true });
    }
  }
  return found;
}

/** `tarballs`: name -> absolute .tgz path; when absent, the workspace version's caret range. */
export function copySample(sampleDir, dest, { tarballs, root = ROOT } = {}) {
  const source = resolve(root, sampleDir);
  if (existsSync(dest) && readdirSync(dest).length > 0) throw new Error(`${dest} exists and is not empty`);
  cpSync(source, dest, {
    recursive: true,
    filter: (path) => {
      const parts = relative(source, path).split(/[\\/]/);
      if (parts.length === 1 && MONOREPO_ONLY.has(parts[0])) return false;
      return !parts.some((part) => SKIP.has(part) || part.endsWith('.tsbuildinfo'));
    },
  });
  const file = join(dest, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  const workspace = workspacePackages(root);
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const [name, range] of Object.entries(pkg[field] ?? {})) {
      if (!String(range).startsWith('workspace:')) continue;
      const target = workspace.get(name);
      if (!target || target.private) throw new Error(`${basename(source)} depends on ${name}, which is not a published package`);
      if (tarballs) {
        const tarball = tarballs.get(name);
        if (!tarball) throw new Error(`no tarball for ${name}`);
        pkg[field][name] = `file:${tarball}`;
      } else {
        pkg[field][name] = `^${target.version}`;
      }
    }
  }
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  return pkg;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [sample, dest, flag, dir] = process.argv.slice(2);
  if (!sample || !dest || (flag && (flag !== '--tarballs' || !dir))) {
    console.error('usage: node scripts/copy-sample.mjs apps/<name>-sample <dest> [--tarballs <dir of .tgz>]');
    process.exit(2);
  }
  let tarballs;
  if (dir) {
    tarballs = new Map();
    for (const [name, { version }] of workspacePackages()) {
      const tgz = resolve(dir, `${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
      if (existsSync(tgz)) tarballs.set(name, tgz);
    }
  }
  copySample(sample, resolve(dest), { tarballs });
  console.log(`copied ${sample} to ${resolve(dest)}: cd there, then npm install && npm run build && npm start`);
}
