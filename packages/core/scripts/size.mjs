// Reports the size of @mediagen/core as an app bundles it: esbuild --bundle --minify, then gzip -9.
// Fails when the whole package passes its budget, so a regression cannot land unnoticed.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

// "Under 10 KB" read strictly: 10,000 bytes, not 10 KiB.
const BUDGET_BYTES = 10_000;
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

const rows = [['import * from @mediagen/core', `export * from ${JSON.stringify(dist)};`]];
const named = process.argv.slice(2);
for (const name of named) rows.push([`import { ${name} }`, `export { ${name} } from ${JSON.stringify(dist)};`]);

let failed = false;
for (const [label, contents] of rows) {
  const { min, gz } = await gzippedSize(contents);
  const over = label.startsWith('import *') && gz > BUDGET_BYTES;
  failed ||= over;
  console.log(
    `${label.padEnd(40)} ${String(min).padStart(7)} B min  ${String(gz).padStart(6)} B min+gz${over ? `  OVER ${BUDGET_BYTES} B` : ''}`,
  );
}
process.exit(failed ? 1 : 0);
