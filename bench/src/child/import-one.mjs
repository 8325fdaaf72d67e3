// Imports one package in a fresh process and reports how long the import took, and how long
// the process had been alive by then (Node's own start-up included).
const spec = process.argv[2];
const t0 = performance.now();
const mod = await import(spec);
const importMs = performance.now() - t0;
if (!mod) process.exit(2);
process.stdout.write(JSON.stringify({ importMs, sinceStartMs: performance.now() }));
