// Reports the size of @mediagen/core as an app bundles it: esbuild --bundle --minify, then gzip -9.
// Fails when a row passes its budget, so a regression cannot land unnoticed.
//
// Budgets: scripts/size-budgets.mjs (shared with the bench).

import { fileURLToPath } from 'node:url';
import { gzippedSize } from './gzipped-size.mjs';
import { BUDGETS } from './size-budgets.mjs';

const from = JSON.stringify(fileURLToPath(new URL('../dist/index.js', import.meta.url)));
/** What an app keeps alive of the import: the same entries the bench measures. */
const keep = (names) => `import { ${names.join(', ')} } from ${from}; globalThis.__keep = [${names.join(', ')}];`;
const rows = [
  ['client: { MediaGenClient, errors }', keep(['MediaGenClient', 'MediaGenError', 'isMediaGenError', 'APIError']), BUDGETS.client],
  ['import * from @mediagen/core', `import * as x from ${from}; globalThis.__keep = x;`, BUDGETS.root],
  ['import { verifyWebhook }', keep(['verifyWebhook']), BUDGETS.verify],
];
for (const name of process.argv.slice(2)) rows.push([`import { ${name} }`, keep([name]), undefined]);

let failed = false;
for (const [label, contents, budget] of rows) {
  const { min, gz } = await gzippedSize(contents, process.cwd());
  const over = budget !== undefined && gz >= budget;
  failed ||= over;
  const limit = budget === undefined ? '' : `  (budget < ${budget} B)`;
  console.log(`${label.padEnd(40)} ${String(min).padStart(7)} B min  ${String(gz).padStart(6)} B min+gz${limit}${over ? '  OVER' : ''}`);
}
process.exit(failed ? 1 : 0);
