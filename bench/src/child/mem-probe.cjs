// Preloaded into `next start` (NODE_OPTIONS=--expose-gc --require) by next-stream-memory.mjs:
// on SIGUSR2, three full GCs, then this process's memoryUsage() to MEMPROBE_DIR/<pid>.json.
// Next's own code is left as it is; the figure is that of the process serving the routes.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const dir = process.env.MEMPROBE_DIR;
if (dir) {
  writeFileSync(join(dir, `${process.pid}.alive`), process.argv.join(' '));
  process.on('SIGUSR2', () => {
    for (let i = 0; i < 3; i++) globalThis.gc?.();
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ at: Date.now(), mem: process.memoryUsage() }));
  });
}
