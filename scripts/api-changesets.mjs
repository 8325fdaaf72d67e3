// Every change to a public surface comes with a changeset of the right size.
//
// The surface is the checked-in API reports (`packages/<dir>/api/<entry>.api.md`, which
// `scripts/api-report.mjs` keeps equal to the build). The baseline is what was last released:
// each report as it was at the package's last release (the last commit that changed its
// `version`, i.e. the "Version Packages" commit), or, for a report added after that release,
// as it was first committed. The pending changesets (`.changeset/*.md`) are what the next
// release will say. So the check needs no merge base and no branch: on a clean clone of main
// it compares main's reports with the last release and asks for the changesets still pending,
// and after a release (changesets consumed, versions bumped) the baseline moves with it.
//
// What each difference asks, by semver (before 1.0 the minor digit is the breaking one: a
// `^0.1.0` range never takes 0.2.0, and changesets' `major` would publish 1.0.0):
//
//   a name removed, or a declaration with a line gone or changed   breaking: `minor` on 0.x, `major` from 1.0
//   a name added, or a declaration that only gained lines           addition: `patch` on 0.x, `minor` from 1.0
//
// A changed line counts as breaking: the check cannot tell a widening (`number` to
// `number | string`) from a narrowing, so it asks for the larger bump and the reviewer reads the
// report's diff. A `major` changeset on a 0.x package fails too (it would publish 1.0.0 by
// accident); the 1.0 release sets MEDIAGEN_RELEASE_1_0=1. `@mediagen/core/internal` is not
// public (no semver) and is not checked. Comments in the reports (docs) are not surface.
//
//   node scripts/api-changesets.mjs       (run by `pnpm release:check`, so by `pnpm test`)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LEVELS = ['none', 'patch', 'minor', 'major'];
/** Entries outside semver: their reports are kept for review, never asked a changeset. */
const NOT_PUBLIC = new Set(['internal']);

/** The declarations of an API report, by exported name: each name's declaration lines (comments dropped, trimmed). */
export function parseReport(text) {
  const code = /```ts\n([\s\S]*?)```/.exec(text.replace(/\r\n/g, '\n'))?.[1] ?? '';
  const names = new Map();
  const add = (name, lines) => names.set(name, [...(names.get(name) ?? []), ...lines]);
  for (const chunk of code.split(/\n\s*\n/)) {
    const lines = chunk
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('//'));
    if (lines.length === 0) continue;
    const first = lines.join(' ');
    const reexport = /^export\s+(?:type\s+)?\{([^}]*)\}/.exec(first);
    if (reexport) {
      for (const name of reexport[1]
        .split(',')
        .map((n) =>
          n
            .trim()
            .split(/\s+as\s+/)
            .pop(),
        )
        .filter(Boolean))
        add(name, [`export { ${name} }`]);
      continue;
    }
    if (/^import\s/.test(first)) continue;
    const declared =
      /^(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:class|function|interface|type|const|let|var|namespace|enum)\s+([\w$]+)/.exec(first);
    if (declared) add(declared[1], lines);
  }
  return names;
}

/** How `after` differs from `before`: `{ removed, changed, added }` names, and the kind of change. */
export function classify(before, after) {
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const added = [...after.keys()].filter((name) => !before.has(name));
  const changed = [];
  const grown = [];
  for (const [name, lines] of before) {
    const now = after.get(name);
    if (!now || now.join('\n') === lines.join('\n')) continue;
    const kept = new Set(now);
    (lines.every((line) => kept.has(line)) ? grown : changed).push(name);
  }
  const kind = removed.length || changed.length ? 'breaking' : added.length || grown.length ? 'addition' : 'none';
  return { removed, changed, added: [...added, ...grown], kind };
}

/** The changeset level a change needs at `version`. */
export function requiredLevel(kind, version) {
  if (kind === 'none') return 'none';
  const zero = version.startsWith('0.');
  if (kind === 'breaking') return zero ? 'minor' : 'major';
  return zero ? 'patch' : 'minor';
}

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const show = (commit, path) => {
  try {
    return git('show', `${commit}:${path}`);
  } catch {
    return undefined;
  }
};

/** The last commit that changed the package's `version` (its last release), or undefined before any. */
function lastRelease(pkgJson) {
  const commits = git('log', '--format=%H', '-G"version"', '--', pkgJson).split('\n').filter(Boolean);
  for (const commit of commits) {
    const now = JSON.parse(show(commit, pkgJson) ?? '{}').version;
    const before = JSON.parse(show(`${commit}^`, pkgJson) ?? '{}').version;
    if (now !== before) return commit;
  }
  return undefined;
}

/** The report as last released: at the release commit, else as first committed after it, else none (a new entry). */
function baselineReport(release, path) {
  if (release) {
    const at = show(release, path);
    if (at !== undefined) return at;
  }
  const range = release ? [`${release}..HEAD`] : ['HEAD'];
  const first = git('log', '--reverse', '--format=%H', '--diff-filter=A', ...range, '--', path)
    .split('\n')
    .find(Boolean);
  return first ? show(first, path) : undefined;
}

/**
 * The names pending changesets give that no published package has (a private one such as
 * `@mediagen/conformance`, or a typo), as `file: name` lines. `changeset version` fails on them,
 * and only at release time: this check is the one every contributor runs, so it refuses them here.
 */
export function unpublishedNames(levels, published) {
  return [...levels]
    .filter(([name]) => !published.has(name))
    .flatMap(([name, { files }]) =>
      files.map((file) => `${file.replace(/ \(\w+\)$/, '')} names ${name}, which is not a published package`),
    );
}

function pendingChangesets() {
  const dir = join(ROOT, '.changeset');
  const levels = new Map();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
    const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? '';
    for (const match of front.matchAll(/^\s*["']?(@?[\w./-]+)["']?\s*:\s*(major|minor|patch)\s*$/gm)) {
      const [, name, level] = match;
      const entry = levels.get(name) ?? { level: 'none', files: [] };
      if (LEVELS.indexOf(level) > LEVELS.indexOf(entry.level)) entry.level = level;
      entry.files.push(`${file} (${level})`);
      levels.set(name, entry);
    }
  }
  return levels;
}

function run() {
  if (git('rev-parse', '--is-shallow-repository') === 'true') {
    console.error('api-changesets: this clone is shallow, so the last release cannot be found: git fetch --unshallow');
    process.exit(1);
  }
  const pending = pendingChangesets();
  const failures = [];
  const published = new Set(
    readdirSync(join(ROOT, 'packages'))
      .map((dir) => join(ROOT, 'packages', dir, 'package.json'))
      .filter((file) => existsSync(file))
      .map((file) => JSON.parse(readFileSync(file, 'utf8')))
      .filter((pkg) => !pkg.private)
      .map((pkg) => pkg.name),
  );
  for (const line of unpublishedNames(pending, published))
    failures.push(`${line}: private packages are never versioned (\`privatePackages.version: false\`); take the line out.`);
  let checked = 0;
  for (const dir of readdirSync(join(ROOT, 'packages')).sort()) {
    const pkgJson = `packages/${dir}/package.json`;
    if (!existsSync(join(ROOT, pkgJson))) continue;
    const pkg = JSON.parse(readFileSync(join(ROOT, pkgJson), 'utf8'));
    if (pkg.private) continue;
    const apiDir = `packages/${dir}/api`;
    const release = lastRelease(pkgJson);
    const now = existsSync(join(ROOT, apiDir)) ? readdirSync(join(ROOT, apiDir)).filter((f) => f.endsWith('.api.md')) : [];
    const then = release
      ? (show(release, apiDir)
          ?.split('\n')
          .filter((f) => f.endsWith('.api.md')) ?? [])
      : [];
    const findings = [];
    let kind = 'none';
    for (const file of [...new Set([...now, ...then])].sort()) {
      const entry = file.replace(/\.api\.md$/, '');
      if (NOT_PUBLIC.has(entry)) continue;
      const path = `${apiDir}/${file}`;
      const current = existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : undefined;
      const base = baselineReport(release, path);
      const diff = classify(parseReport(base ?? ''), parseReport(current ?? ''));
      checked++;
      if (diff.kind === 'none') continue;
      if (diff.kind === 'breaking') kind = 'breaking';
      else if (kind === 'none') kind = 'addition';
      const label = entry === 'index' ? pkg.name : `${pkg.name}/${entry}`;
      const parts = [
        diff.removed.length && `removed ${diff.removed.join(', ')}`,
        diff.changed.length && `changed ${diff.changed.join(', ')}`,
        diff.added.length && `added ${diff.added.join(', ')}`,
      ].filter(Boolean);
      findings.push(`  ${label}: ${parts.join('; ')}`);
    }
    const need = requiredLevel(kind, pkg.version);
    const have = pending.get(pkg.name) ?? { level: 'none', files: [] };
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: run by release:check outside any turbo task
    if (have.level === 'major' && pkg.version.startsWith('0.') && process.env.MEDIAGEN_RELEASE_1_0 !== '1') {
      failures.push(
        `${pkg.name} ${pkg.version}: a major changeset (${have.files.join(', ')}) publishes 1.0.0. Before 1.0 a breaking change is a minor one; ` +
          'the 1.0 release is its own decision (set MEDIAGEN_RELEASE_1_0=1 for it, see RELEASING.md).',
      );
    }
    if (LEVELS.indexOf(have.level) < LEVELS.indexOf(need)) {
      failures.push(
        `${pkg.name} ${pkg.version}: its public surface changed since ${release ? `its last release (${release.slice(0, 7)})` : 'it was first reported'} ` +
          `(${kind}), which needs at least a ${need} changeset; pending: ${have.files.length ? have.files.join(', ') : 'none'}.\n${findings.join('\n')}`,
      );
    }
  }
  if (failures.length > 0) {
    console.error(
      `${failures.join('\n\n')}\n\nAdd a changeset that says what a user must change (npx -y pnpm@12.21.0 changeset), ` +
        `or, if the surface change is not meant, undo it (the reports are ${relative(ROOT, join(ROOT, 'packages/*/api'))}/*.api.md).`,
    );
    process.exit(1);
  }
  console.log(`${checked} public API reports: every change since the last release has a changeset of its size`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) run();
