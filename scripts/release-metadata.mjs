// The project's public address, in one place, and the guard that keeps a release from going out without it.
//
// The address is ONE setting: `publicRepository` in the root package.json (the repository's web
// address, `https://<host>/<owner>/<repo>`), or the environment's MEDIAGEN_REPOSITORY_URL, which
// wins. From it this writes each published package's `repository` (with its `directory`: npm
// checks a provenance statement against it), `homepage` and `bugs`. The project has no public
// address yet: the setting is `null`, the manifests carry none of the three, and nothing here
// ever invents one.
//
//   node scripts/release-metadata.mjs write    writes (or, unset, removes) the three fields in every
//                                              published manifest from the setting; commit the result
//   node scripts/release-metadata.mjs check    fails when a manifest differs from what the setting gives
//   node scripts/release-metadata.mjs guard    run first by `pnpm release`: refuses a publish to any
//                                              registry that is not on this machine (registry.npmjs.org,
//                                              a company registry) while the setting is unset, is the
//                                              stand-in, or the manifests are not written from it
//
// A registry on this machine (127.0.0.1, localhost, ::1: a Verdaccio for a rehearsal) is allowed
// without the address. A rehearsal that wants the fields filled uses STAND_IN_REPOSITORY_URL, a
// reserved `.invalid` host (RFC 2606: never resolves), in a throwaway copy:
// `writeMetadata(STAND_IN_REPOSITORY_URL, { root: copy })`, or MEDIAGEN_REPOSITORY_URL set to it.
// The guard refuses the stand-in for any registry off this machine.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** For a rehearsal against a registry on this machine only: `.invalid` is reserved and never resolves. */
export const STAND_IN_REPOSITORY_URL = 'https://git.invalid/mediagen/sdk';

/** The fields this script owns in each published manifest. */
export const OWNED_FIELDS = ['repository', 'homepage', 'bugs'];

/**
 * The setting, checked: `https://<host>/<owner>/<repo>` without credentials, query or fragment
 * (a trailing `/` or `.git` is dropped), or undefined when unset. Throws on anything else.
 */
export function repositoryUrl({ root = ROOT, env = process.env } = {}) {
  const fromEnv = env.MEDIAGEN_REPOSITORY_URL;
  const raw =
    fromEnv !== undefined && fromEnv !== '' ? fromEnv : JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).publicRepository;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const where = fromEnv ? 'MEDIAGEN_REPOSITORY_URL' : 'publicRepository in the root package.json';
  let url;
  try {
    url = new URL(String(raw));
  } catch {
    throw new Error(`${where} is not a URL: ${JSON.stringify(raw)}`);
  }
  // Never echo an address with credentials in it: the message goes to a CI log.
  if (url.username || url.password) throw new Error(`${where} must not carry credentials`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  if (url.protocol !== 'https:' || url.search || url.hash || path.split('/').filter(Boolean).length < 2) {
    throw new Error(`${where} must be the repository's web address, https://<host>/<owner>/<repo>: ${JSON.stringify(raw)}`);
  }
  return `https://${url.host}${path}`;
}

/** The three fields for the package in `packages/<dir>`, from the repository's web address. */
export function metadataFor(url, dir) {
  return {
    repository: { type: 'git', url: `git+${url}.git`, directory: `packages/${dir}` },
    homepage: `${url}/tree/main/packages/${dir}#readme`,
    bugs: { url: `${url}/issues` },
  };
}

/** Every published package (`packages/*` without `"private": true`): `{ dir, file, pkg }`. */
export function publishedManifests(root = ROOT) {
  const base = join(root, 'packages');
  return readdirSync(base)
    .sort()
    .map((dir) => ({ dir, file: join(base, dir, 'package.json') }))
    .filter(({ file }) => existsSync(file))
    .map((entry) => ({ ...entry, pkg: JSON.parse(readFileSync(entry.file, 'utf8')) }))
    .filter(({ pkg }) => pkg.private !== true);
}

/** The manifest with the three fields as `url` gives them (removed when `url` is undefined), kept in their place. */
function withMetadata(pkg, url, dir) {
  const wanted = url ? metadataFor(url, dir) : {};
  const out = {};
  let placed = false;
  const place = () => {
    if (placed) return;
    placed = true;
    for (const field of OWNED_FIELDS) if (wanted[field]) out[field] = wanted[field];
  };
  for (const [key, value] of Object.entries(pkg)) {
    if (OWNED_FIELDS.includes(key)) {
      place();
      continue;
    }
    out[key] = value;
    // New fields go after `license`, where npm's own `npm init` puts them.
    if (key === 'license') place();
  }
  place();
  return out;
}

/** Writes the three fields into every published manifest under `root`; returns the names it changed. */
export function writeMetadata(url, { root = ROOT } = {}) {
  const changed = [];
  for (const { dir, file, pkg } of publishedManifests(root)) {
    const next = withMetadata(pkg, url, dir);
    if (JSON.stringify(next) === JSON.stringify(pkg)) continue;
    writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
    changed.push(pkg.name);
  }
  return changed;
}

/** The published packages whose three fields differ from what `url` gives. */
export function staleManifests(url, { root = ROOT } = {}) {
  return publishedManifests(root)
    .filter(({ dir, pkg }) => OWNED_FIELDS.some((f) => JSON.stringify(pkg[f]) !== JSON.stringify(withMetadata(pkg, url, dir)[f])))
    .map(({ pkg }) => pkg.name);
}

/** Whether a registry address is on this machine (a local rehearsal) rather than anyone else's. */
export function isLoopbackRegistry(registry) {
  let host;
  try {
    host = new URL(registry).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Why a publish to these registries must not run, or undefined when it may. `registries` are
 * every address the publish would upload to (the default one and the `@mediagen` scope's).
 */
export function refusal({ registries, url, stale }) {
  const remote = [...new Set(registries)].filter((r) => !isLoopbackRegistry(r));
  if (remote.length === 0) return undefined;
  const to = remote.join(', ');
  if (url === undefined) {
    return (
      `release: refusing to publish to ${to}: the project has no public address yet. Set "publicRepository" in the root ` +
      "package.json (or MEDIAGEN_REPOSITORY_URL) to the repository's web address, https://<host>/<owner>/<repo>, run " +
      '`node scripts/release-metadata.mjs write` and commit: npm shows repository, homepage and bugs from it, and refuses a ' +
      'provenance statement without a matching repository. A registry on this machine (127.0.0.1, localhost) needs no address.'
    );
  }
  if (new URL(url).hostname.endsWith('.invalid')) {
    return `release: refusing to publish to ${to}: ${url} is the stand-in address for a registry on this machine, not the project's.`;
  }
  if (stale.length > 0) {
    return (
      `release: refusing to publish to ${to}: the manifests of ${stale.join(', ')} do not carry ${url}. ` +
      'Run `node scripts/release-metadata.mjs write` and commit the result.'
    );
  }
  return undefined;
}

/** pnpm, as `pnpm release` runs it (its own binary), else the one on PATH. */
export function pnpmCommand(env = process.env) {
  return /(^|[/\\])pnpm[^/\\]*$/.test(env.npm_execpath ?? '') ? env.npm_execpath : 'pnpm';
}

/** Where `changeset publish` (pnpm publish) would upload: the default registry and the `@mediagen` scope's, as pnpm reads its settings. */
export function publishRegistries({ root = ROOT, env = process.env } = {}) {
  const get = (key) => execFileSync(pnpmCommand(env), ['config', 'get', key], { cwd: root, env, encoding: 'utf8' }).trim();
  const registry = get('registry');
  const scoped = get('@mediagen:registry');
  return [registry, ...(scoped && scoped !== 'undefined' ? [scoped] : [])];
}

function main(command) {
  const url = repositoryUrl();
  if (command === 'write') {
    const changed = writeMetadata(url);
    console.log(
      `${url ? `repository, homepage and bugs from ${url}` : 'no public address set: repository, homepage and bugs removed'}; ` +
        `${changed.length ? `changed ${changed.join(', ')}` : 'every manifest already so'}`,
    );
    return;
  }
  if (command === 'check') {
    const stale = staleManifests(url);
    if (stale.length > 0) {
      console.error(
        `release-metadata: ${stale.join(', ')} differ from ${url ?? 'the unset address'}: run \`node scripts/release-metadata.mjs write\``,
      );
      process.exit(1);
    }
    console.log(`release-metadata: every published manifest is written from ${url ?? 'the unset address (no repository, homepage, bugs)'}`);
    return;
  }
  if (command === 'guard') {
    const registries = publishRegistries();
    const why = refusal({ registries, url, stale: url ? staleManifests(url) : [] });
    if (why) {
      console.error(why);
      process.exit(1);
    }
    console.log(
      `release: publishing to ${[...new Set(registries)].join(', ')}${url ? ` with ${url}` : ' (on this machine, no public address)'}`,
    );
    return;
  }
  console.error('usage: node scripts/release-metadata.mjs write | check | guard');
  process.exit(2);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main(process.argv[2]);
  } catch (error) {
    console.error(`release-metadata: ${error.message}`);
    process.exit(1);
  }
}
