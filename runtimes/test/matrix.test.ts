import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { CELLS, checksOf } from '../src/cells.js';
import { runMatrix } from '../src/matrix.js';
import { normalised, README, renderTable, tableIn, writeResults } from '../src/table.js';

/**
 * The whole matrix, each runtime a real process of its own (two at a time: two cores), then one
 * test per cell and check. results.json is rewritten from this run; the README's table must be
 * the one it renders, so a table that no longer says what runs where fails here.
 */
type CellResult = { id: string; runtime: string; unavailable?: string; checks?: { check: string; ok: boolean; error?: string }[] };
let cells: CellResult[] = [];

beforeAll(async () => {
  const started = performance.now();
  const run = await runMatrix({ concurrency: 2, log: (line: string) => console.log(`runtime matrix: ${line}`) });
  cells = run.cells;
  console.log(`runtime matrix: ${cells.length} cells in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await writeResults({ cells });
});

describe.each(CELLS.filter((cell) => cell.pending))('$runtime', (cell) => {
  it('is listed as not run, with its reason', () => {
    expect(cells.find((c) => c.id === cell.id)?.unavailable).toBe(cell.pending);
  });
});

describe.each(CELLS.filter((cell) => !cell.pending))('$runtime', (cell) => {
  it.for(checksOf(cell))('%s', (check, context) => {
    const result = cells.find((c) => c.id === cell.id);
    // Only a platform the runtime's package does not ship for; on linux-x64 (CI) every cell runs.
    if (result?.unavailable) context.skip(result.unavailable);
    const outcome = result?.checks?.find((c) => c.check === check);
    expect(outcome?.error ?? null).toBeNull();
    expect(outcome?.ok).toBe(true);
  });
});

it("the README's runtime table is the one this run's results render", async () => {
  const readme = await readFile(README, 'utf8');
  expect(normalised(tableIn(readme)), 'stale: run `pnpm --filter @mediagen/runtime-matrix readme` and commit README.md').toBe(
    normalised(renderTable({ cells })),
  );
});
