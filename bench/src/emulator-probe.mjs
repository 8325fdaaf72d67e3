// Whether the pieces the emulator rows need have landed, and the emulator in a child process.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startChild, here } from './child.mjs';

export async function emulatorMissing() {
  try {
    const mod = await import('@mediagen/emulator');
    if (typeof mod.startEmulator !== 'function') return '@mediagen/emulator has no startEmulator export yet';
    return null;
  } catch (e) {
    return `@mediagen/emulator does not load (${String(e?.message ?? e).split('\n')[0].slice(0, 120)})`;
  }
}

/** The client-side gate: `gate?:` among the built client's options. */
export function gateMissing() {
  try {
    const dts = fileURLToPath(import.meta.resolve('@mediagen/core').replace(/\.js$/, '.d.ts'));
    return /\bgate\?\s*:/.test(readFileSync(dts, 'utf8')) ? null : "@mediagen/core's client has no `gate` option yet";
  } catch (e) {
    return `@mediagen/core types unreadable (${e.message})`;
  }
}

export async function startEmulatorChild(config) {
  const c = await startChild(here('./child/emulator-server.mjs'), {
    execArgv: ['--expose-gc'],
    env: { BENCH_EMULATOR_CONFIG: JSON.stringify(config) },
  });
  return {
    url: c.info.url,
    memory: () => c.ask({ cmd: 'memory' }),
    async stop() {
      await c.ask({ cmd: 'close' }, 10_000).catch(() => {});
      await c.stop();
    },
  };
}
