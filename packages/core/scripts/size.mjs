// Reports the size of @mediagen/core as an app bundles it: esbuild --bundle --minify, then gzip -9.
// Fails when a row passes its budget, so a regression cannot land unnoticed.
//
// Budgets: scripts/size-budgets.mjs (shared with the bench).

import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BUDGETS } from './size-budgets.mjs';

const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

async function gzippedSize(contents) {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'neutral',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0].contents;
  return { min: bytes.length, gz: gzipSync(bytes, { level: 9 }).length };
}

const from = JSON.stringify(dist);
const rows = [
  [
    'client: { MediaGenClient, errors }',
    `export { MediaGenClient, MediaGenError, isMediaGenError, APIError } from ${from};`,
    BUDGETS.client,
  ],
  ['import * from @mediagen/core', `export * from ${from};`, BUDGETS.root],
];
for (const name of process.argv.slice(2)) rows.push([`import { ${name} }`, `export { ${name} } from ${from};`, undefined]);

let failed = false;
for (const [label, contents, budget] of rows) {
  const { min, gz } = await gzippedSize(contents);
  const over = budget !== undefined && gz >= budget;
  failed ||= over;
  const limit = budget === undefined ? '' : `  (budget < ${budget} B)`;
  console.log(`${label.padEnd(40)} ${String(min).padStart(7)} B min  ${String(gz).padStart(6)} B min+gz${limit}${over ? '  OVER' : ''}`);
}
process.exit(failed ? 1 : 0);
