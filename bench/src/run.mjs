// `pnpm bench [--quick] [--only=a,b]`: every measurement in one run, one table.
// Exits 0 whenever the bench itself ran, whatever the figures (misses are reported, never
// hidden); exits 1 only when a measurement crashed (the bench is broken).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { machine, PEER_COLUMNS, printTable, write } from './report.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');

const MEASUREMENTS = [
  ['client-overhead', './client-overhead.mjs'],
  ['webhook-verify', './webhook-verify.mjs'],
  ['bundle-size', './bundle-size.mjs'],
  ['cold-start', './cold-start.mjs'],
  ['batch-throughput', './batch-throughput.mjs'],
  ['batch-ledger', './batch-ledger.mjs'],
  ['emulator-capacity', './emulator-capacity.mjs'],
  ['wait-latency', './wait-latency.mjs'],
  ['ledger-submit', './ledger-overhead.mjs'],
  ['ledger-reconciler', './ledger-reconciler.mjs'],
  ['streams', './streams.mjs'],
  ['completion-to-pixel', './completion-to-pixel.mjs'],
  ['uploads', './uploads.mjs'],
  ['eta-error', './eta-error.mjs'],
];

function peerVersions() {
  const require = createRequire(new URL('../package.json', import.meta.url));
  const out = {};
  for (const p of [...PEER_COLUMNS, 'autocannon']) {
    try {
      out[p] = JSON.parse(readFileSync(require.resolve(`${p}/package.json`), 'utf8')).version;
    } catch {
      const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
      out[p] = pkg.devDependencies?.[p] ?? '?';
    }
  }
  return out;
}

const started = new Date();
const t0 = performance.now();
const rows = [];
const raw = {};
let crashed = false;
for (const [name, file] of MEASUREMENTS) {
  if (only && !only.includes(name)) continue;
  const t = performance.now();
  process.stderr.write(`bench: ${name}${quick ? ' (quick)' : ''} … `);
  try {
    const mod = await import(file);
    const result = await mod.run({ quick });
    rows.push(...result.rows);
    raw[name] = result.raw;
    process.stderr.write(`${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    crashed = true;
    process.stderr.write(`crashed\n${error?.stack ?? error}\n`);
    rows.push({
      id: name,
      what: name,
      ours: `not measured: the measurement crashed (${String(error?.message ?? error).slice(0, 200)})`,
      peers: {},
      status: 'error',
    });
    raw[name] = { error: String(error?.stack ?? error) };
  }
}
const meta = {
  machine: machine(),
  quick,
  startedAt: started.toISOString(),
  durationMs: performance.now() - t0,
  peerVersions: peerVersions(),
};
const result = { meta, rows, raw };
const written = write(result);
console.log(printTable(result));
console.log(`\nwrote ${written.join(' and ')}`);
process.exit(crashed ? 1 : 0);
