import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { CI, FULL, failures, runMatrix } from '../src/registry/matrix';
import { RESULTS_FILE, readResults, renderTable, tableIn, writeResults, writeTable } from '../src/registry/table';

// The release through a real registry (Verdaccio, started here) and its users: `pnpm test` runs
// the covering part (CI); `pnpm release:matrix` (REGISTRY_MATRIX=full) runs every package
// manager with every framework and writes checks/registry-results.json and RELEASING.md's table.
const full = process.env.REGISTRY_MATRIX === 'full';
const plan = full ? FULL : CI;

describe(`the release through a local registry (${plan.name} matrix)`, () => {
  it('publishes with changesets, and every cell installs by name, builds, runs, upgrades', { timeout: 3_600_000 }, async () => {
    const results = await runMatrix(plan, join(inject('scratch'), 'registry-matrix'), (line) => console.log(`[registry] ${line}`));
    if (full) {
      await writeResults(results);
      await writeTable(results);
    } else writeFileSync(join(inject('scratch'), 'registry-ci-results.json'), JSON.stringify(results, null, 2));
    console.log(`[registry] ${plan.name} matrix: ${results.seconds} s`);
    expect(results.releases[0]!.tags.length, 'the first release tagged every published package').toBeGreaterThan(0);
    expect(results.releases[1]!.tags.length, 'the patch release tagged what it published').toBeGreaterThan(0);
    expect(failures(results)).toEqual([]);
  });
});

describe('the full matrix as RELEASING.md shows it', () => {
  it('covers every package manager × framework, none failed, and the table is the one the results render', async () => {
    const results = await readResults();
    const key = (c: { pm: string; framework: string }) => `${c.pm} × ${c.framework}`;
    expect(results.cells.map(key), `${RESULTS_FILE} is not the full matrix: run \`pnpm release:matrix\``).toEqual(FULL.cells.map(key));
    expect(results.creates.map((c) => c.pm)).toEqual(FULL.creates.map((c) => c.pm));
    expect(
      results.cells.every((c) => c.upgraded !== undefined),
      'every cell of the full matrix upgraded',
    ).toBe(true);
    expect(failures(results)).toEqual([]);
    expect(tableIn(), 'RELEASING.md is stale: run `pnpm release:matrix` (or `node` … see checks/README.md) and commit').toBe(
      renderTable(results),
    );
  });
});
