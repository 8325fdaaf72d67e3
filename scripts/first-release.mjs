// The first release's version commit, prepared in one command: `node scripts/first-release.mjs`.
//
// Every published package (a workspace package without `"private": true`) is still 0.0.0 and
// must come out of `changeset version` at exactly 0.1.0 with a CHANGELOG.md. A package whose
// pending changesets are patches only would come out at 0.0.1, and one with none would not be
// released at all, so this adds one `minor` changeset ("First release.") naming every published
// package with no minor or major changeset of its own, runs
// `changeset version`, then checks the result and exits non-zero, naming each package, when
// anything is off. It commits nothing: review `git diff`, commit, then `pnpm release`
// (RELEASING.md).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIRST = '0.1.0';
const CHANGESET_FILE = join(ROOT, '.changeset', 'first-release.md');

/** pnpm, as the lead runs it (the root's own pnpm; `npx -y pnpm@12.21.0` in CI). */
function pnpm(args) {
  return execFileSync('pnpm', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** The workspace's own changesets CLI, called directly (no `pnpm exec`: nothing to install or verify first). */
function changeset(args) {
  return execFileSync(join(ROOT, 'node_modules', '.bin', 'changeset'), args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Every workspace package, as pnpm reads pnpm-workspace.yaml: { name, version, dir, private }. */
function workspacePackages() {
  const listed = JSON.parse(pnpm(['ls', '-r', '--depth', '-1', '--json']));
  return listed
    .filter((p) => p.path !== ROOT.replace(/\/$/, ''))
    .map((p) => {
      const pkg = JSON.parse(readFileSync(join(p.path, 'package.json'), 'utf8'));
      return { name: pkg.name, version: pkg.version, dir: p.path, private: pkg.private === true, pkg };
    });
}

/**
 * The bump each package's own pending changesets ask for: Map<name, 'major' | 'minor' | 'patch'>.
 * Read from the files (the frontmatter grammar checks/src/changesets.ts checks), not from
 * `changeset status`, which needs git to find main and with `--since` reports only new changesets.
 */
function requestedBumps() {
  const rank = { patch: 1, minor: 2, major: 3 };
  const bumps = new Map();
  for (const file of pendingChangesets()) {
    const text = readFileSync(join(ROOT, '.changeset', file), 'utf8');
    const frontmatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
    if (!frontmatter) fail([`.changeset/${file} has no frontmatter`]);
    for (const line of frontmatter[1].split(/\r?\n/).filter((l) => l.trim() !== '')) {
      const release = /^\s*["']?(@?[\w./-]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
      if (!release) fail([`.changeset/${file}: not a "name": bump line: ${line}`]);
      const [, name, bump] = release;
      if (!bumps.has(name) || rank[bump] > rank[bumps.get(name)]) bumps.set(name, bump);
    }
  }
  return bumps;
}

function pendingChangesets() {
  return readdirSync(join(ROOT, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
}

function fail(problems) {
  console.error(`\nfirst-release: FAILED\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  process.exit(1);
}

// 1. Refuse anything but a first release: every published package at 0.0.0.
const before = workspacePackages();
const published = before.filter((p) => !p.private);
if (published.length === 0) fail(['no published package found in the workspace']);
const released = published.filter((p) => p.version !== '0.0.0');
if (released.length > 0) {
  fail(released.map((p) => `${p.name} is at ${p.version}: not a first release (use \`pnpm changeset version\`)`));
}

// 2. One minor changeset for every published package with no minor or major one of its own (a
//    patch, or only a dependency's bump, would take it to 0.0.1).
const requested = requestedBumps();
const majors = published.filter((p) => requested.get(p.name) === 'major');
if (majors.length > 0) fail(majors.map((p) => `${p.name} has a major changeset: it would be released as 1.0.0, not ${FIRST}`));
const lacking = published.filter((p) => requested.get(p.name) !== 'minor');
for (const p of lacking) {
  console.log(`first-release: ${p.name}: ${requested.has(p.name) ? 'patch changesets only' : 'no changeset'}; adding a minor one`);
}
if (lacking.length > 0) {
  if (existsSync(CHANGESET_FILE)) fail([`${relative(ROOT, CHANGESET_FILE)} exists already: remove it and run again`]);
  const frontmatter = lacking.map((p) => `"${p.name}": minor`).join('\n');
  writeFileSync(CHANGESET_FILE, `---\n${frontmatter}\n---\n\nFirst release.\n`);
}

// 3. The version run itself.
console.log(`first-release: ${pendingChangesets().length} changesets -> pnpm changeset version`);
changeset(['version']);

// 4. Check what it wrote.
const problems = [];
const after = new Map(workspacePackages().map((p) => [p.name, p]));
for (const p of published) {
  const now = after.get(p.name);
  if (now?.version !== FIRST) problems.push(`${p.name} is at ${now?.version}, not ${FIRST}`);
  const changelog = join(p.dir, 'CHANGELOG.md');
  if (!existsSync(changelog)) problems.push(`${p.name} has no CHANGELOG.md`);
  else if (!readFileSync(changelog, 'utf8').includes(`## ${FIRST}`)) problems.push(`${p.name}'s CHANGELOG.md has no "## ${FIRST}" section`);
  if (!now?.pkg.files?.includes('CHANGELOG.md')) problems.push(`${p.name}'s "files" does not ship CHANGELOG.md`);
}
for (const p of before.filter((q) => q.private)) {
  const now = after.get(p.name);
  if (now?.version !== p.version) problems.push(`private ${p.name} was versioned (${p.version} -> ${now?.version})`);
  if (existsSync(join(p.dir, 'CHANGELOG.md'))) problems.push(`private ${p.name} got a CHANGELOG.md`);
}
for (const p of after.values()) {
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(p.pkg[field] ?? {})) {
      const target = after.get(dep);
      // pnpm publish rewrites workspace: ranges to the released versions; a plain range would pin a stale one.
      if (target && !String(range).startsWith('workspace:'))
        problems.push(`${p.name} ${field}.${dep} is "${range}", not a workspace: range`);
    }
  }
}
const left = pendingChangesets();
if (left.length > 0) problems.push(`changesets left unconsumed: ${left.join(', ')}`);
if (problems.length > 0) fail(problems);

console.log(`\nfirst-release: ${published.length} packages at ${FIRST}, each with a CHANGELOG.md:`);
for (const p of published) console.log(`  ${p.name}@${FIRST}`);
// Not a failure of the version run, but the publish would fail on it: npm refuses a provenance
// statement whose repository does not match the package's `repository` field (RELEASING.md).
const unlinked = published.filter((p) => !after.get(p.name)?.pkg.repository);
if (unlinked.length > 0) {
  console.warn(`\nfirst-release: WARNING: no "repository" in ${unlinked.map((p) => p.name).join(', ')}.`);
  console.warn('  Publishing with provenance (release.yml) needs it: see RELEASING.md, "Set up once".');
}
console.log('\nNext: review `git diff`, commit it ("Version Packages"), then `pnpm release` (RELEASING.md).');
