// Packs each apps/<name>-sample into dist/templates/<name> at build time, as a standalone npm
// project: its `workspace:` dependencies become the published range of each package
// (`^<version>`), the monorepo's own files (build output, local state, configs extending the
// root's) stay behind, and dotfiles are stored under another name because npm drops some of
// them (`.gitignore`) from a package. Generic over a sample's files: whatever a sample has
// travels, so samples change without an edit here. The files the samples share (the page, the
// user cookie, the settings) are written from their one source in apps/shared/, and the build
// refuses to run while a sample's checked-in copy differs from it (see shared-files.mjs).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DRIFT_HELP, driftedCopies, sharedCopies } from './shared-files.mjs';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(PACKAGE, '..', '..');
const OUT = join(PACKAGE, 'dist', 'templates');

/** Build output, installs and local state: never part of an app. */
const SKIP = new Set(['node_modules', 'dist', 'data', '.turbo', '.next', 'coverage', 'demo-output', 'test-output']);
/** The monorepo's own config at a sample's top (they extend the root's): not part of an app. */
const MONOREPO_ONLY = new Set(['turbo.json', 'biome.json']);
/** How a dotfile is stored in the package (the CLI renames it back): `.gitignore` -> `_dot_gitignore`. */
export const DOTFILE_PREFIX = '_dot_';

/** The workspace's packages by name: { version, private }. */
function workspacePackages() {
  const found = new Map();
  for (const parent of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, parent))) {
      const file = join(ROOT, parent, name, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      found.set(pkg.name, { version: pkg.version, private: pkg.private === true });
    }
  }
  return found;
}

function bundle(sampleDir, dest, workspace) {
  cpSync(sampleDir, dest, {
    recursive: true,
    filter: (path) => {
      const parts = relative(sampleDir, path).split(/[\\/]/);
      if (parts.length === 1 && MONOREPO_ONLY.has(parts[0])) return false;
      return !parts.some((part) => SKIP.has(part) || part.endsWith('.tsbuildinfo'));
    },
  });
  const file = join(dest, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const [name, range] of Object.entries(pkg[field] ?? {})) {
      if (!String(range).startsWith('workspace:')) continue;
      const target = workspace.get(name);
      if (field === 'devDependencies' && target?.private) {
        // The monorepo's own test helpers (the conformance suites): not published, so the
        // dependency and the tests importing it stay behind.
        delete pkg[field][name];
        dropImporters(join(dest, 'test'), name);
        continue;
      }
      if (!target || target.private) throw new Error(`${basename(sampleDir)} depends on ${name}, which is not a published package`);
      pkg[field][name] = `^${target.version}`;
    }
  }
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  // The shared files from their source (the same bytes as the sample's copy: checked before any bundle).
  for (const shared of sharedCopies(ROOT).filter((copy) => copy.sample === basename(sampleDir))) {
    mkdirSync(join(dest, shared.path, '..'), { recursive: true });
    cpSync(shared.source, join(dest, shared.path));
  }
  renameDotfiles(dest);
}

/** Removes the files under `dir` that import `name`. */
function dropImporters(dir, name) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) dropImporters(path, name);
    else if (readFileSync(path, 'utf8').includes(`from '${name}'`)) rmSync(path);
  }
}

function renameDotfiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) renameDotfiles(path);
    if (name.startsWith('.')) renameSync(path, join(dir, `${DOTFILE_PREFIX}${name.slice(1)}`));
  }
}

const drifted = driftedCopies(ROOT);
if (drifted.length) throw new Error(`create-mediagen: ${drifted.join(', ')} differ from their source in apps/shared/: ${DRIFT_HELP}`);
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const workspace = workspacePackages();
const templates = [];
for (const name of readdirSync(join(ROOT, 'apps')).sort()) {
  const dir = join(ROOT, 'apps', name);
  if (!name.endsWith('-sample') || !existsSync(join(dir, 'package.json'))) continue;
  const template = name.slice(0, -'-sample'.length);
  bundle(dir, join(OUT, template), workspace);
  templates.push(template);
}
if (templates.length === 0) throw new Error('no apps/*-sample found to bundle');
writeFileSync(join(OUT, 'index.json'), `${JSON.stringify({ templates }, null, 2)}\n`);
console.log(`create-mediagen: bundled templates ${templates.join(', ')}`);
