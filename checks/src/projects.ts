import { join } from 'node:path';
import { fileDeps, npmProject, type ProjectSpec, TOOLS } from './npm';
import { extractSnippets, importedPackages } from './snippets';
import { type PackageJson, publishedPackages, type WorkspacePackage } from './workspace';

/** Published packages with no framework peer (core, emulator, redis, cli): they share one plain Node project. */
export function plainPackages(): PackageJson[] {
  return publishedPackages()
    .map(({ pkg }) => pkg)
    .filter((pkg) => frameworkPeers(pkg).length === 0);
}

/** The peers a package needs from the app (express, next, @nestjs/*), not our own packages nor optional ones. */
export function frameworkPeers(pkg: PackageJson): string[] {
  const meta = (pkg.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>;
  return Object.keys(pkg.peerDependencies ?? {}).filter((name) => !name.startsWith('@mediagen/') && meta[name]?.optional !== true);
}

/**
 * Optional peers (msw for `@mediagen/emulator/msw`, ai for `@mediagen/ai-sdk`) at the version the
 * package is developed against: a user of that entry has them, and its README's snippets use them.
 */
function optionalPeers(pkg: PackageJson): Record<string, string> {
  const meta = (pkg.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>;
  const peers: Record<string, string> = {};
  for (const [name, range] of Object.entries(pkg.peerDependencies ?? {})) {
    if (meta[name]?.optional === true) peers[name] = pkg.devDependencies?.[name] ?? range;
  }
  return peers;
}

/** Our packages `pkg` needs, itself included, plus the emulator to run against. */
function ownPackages(pkg: PackageJson): string[] {
  const deps = Object.keys(pkg.dependencies ?? {}).filter((name) => name.startsWith('@mediagen/'));
  return [...new Set([pkg.name, ...deps, '@mediagen/emulator'])];
}

/**
 * What an app using `pkg` installs: its tarball (and our packages it needs), the framework at the
 * version the package is developed against (its devDependency, else the peer range), the
 * framework's `@types/*` when the package's own tests use them, what its README's snippets import
 * (see `readmeImports`), TypeScript and Node's types.
 */
export function frameworkProject(
  { dir, pkg }: WorkspacePackage,
  tarballs: Record<string, string>,
  overrides: Record<string, string> = {},
): ProjectSpec {
  const framework: Record<string, string> = {};
  for (const peer of frameworkPeers(pkg)) framework[peer] = pkg.devDependencies?.[peer] ?? pkg.peerDependencies![peer]!;
  const types: Record<string, string> = {};
  for (const [name, range] of Object.entries(pkg.devDependencies ?? {})) {
    const typed = name.replace(/^@types\//, '');
    if (name.startsWith('@types/') && frameworkPeers(pkg).some((peer) => peer === typed || peer.startsWith(`${typed}-`)))
      types[name] = range;
  }
  return {
    dependencies: { ...fileDeps(tarballs, ownPackages(pkg)), ...readmeImports({ dir, pkg }, tarballs), ...framework, ...overrides },
    devDependencies: { typescript: TOOLS.typescript, '@types/node': TOOLS['@types/node'], ...types },
  };
}

/**
 * What the README's snippets import besides the package and its framework, as a user following
 * it installs them: our packages from their tarballs (`@mediagen/sqlite`, the ledger's store), the
 * others at the version the package is developed against (its devDependency: `@hono/node-server`).
 * Anything else comes with what is installed (a peer npm adds) or fails the snippets' typecheck.
 */
function readmeImports({ dir, pkg }: WorkspacePackage, tarballs: Record<string, string>): Record<string, string> {
  const deps: Record<string, string> = {};
  for (const name of importedPackages(extractSnippets(join(dir, 'README.md')))) {
    if (name === pkg.name || frameworkPeers(pkg).includes(name)) continue;
    if (name.startsWith('@mediagen/')) {
      if (!tarballs[name]) throw new Error(`${pkg.name}'s README imports ${name}, which is not a published package.`);
      deps[name] = `file:${tarballs[name]}`;
    } else if (pkg.devDependencies?.[name]) deps[name] = pkg.devDependencies[name];
  }
  return deps;
}

/** The plain project: every plain package's tarball, TypeScript, Node's types and esbuild. */
export function plainProject(dir: string, tarballs: Record<string, string>): Promise<string> {
  const plain = plainPackages();
  return npmProject(dir, {
    dependencies: {
      ...fileDeps(
        tarballs,
        plain.map((pkg) => pkg.name),
      ),
      ...Object.assign({}, ...plain.map(optionalPeers)),
    },
    devDependencies: { ...TOOLS },
  });
}
