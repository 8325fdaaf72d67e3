/**
 * `pnpm --filter @mediagen/runtime-matrix matrix`: runs the matrix and writes results.json.
 * `… readme`: writes the root README's table from results.json (run the matrix first).
 */
import { runMatrix } from './matrix.js';
import { readResults, writeReadmeTable, writeResults } from './table.js';

if (process.argv.includes('--write-readme')) {
  await writeReadmeTable(await readResults());
  console.log('README.md: runtime table written from runtimes/results.json');
} else {
  const started = performance.now();
  const { cells } = await runMatrix({ log: (line) => console.log(line) });
  await writeResults({ cells });
  console.log(`matrix: ${((performance.now() - started) / 1000).toFixed(1)} s; runtimes/results.json written`);
  if (cells.some((c) => c.checks?.some((check) => !check.ok))) process.exitCode = 1;
}
