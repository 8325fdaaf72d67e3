// Whether the pieces the emulator rows need have landed, and the emulator in a child process.
import { here, startChild } from './child.mjs';

export async function emulatorMissing() {
  try {
    const mod = await import('@mediagen/emulator');
    if (typeof mod.startEmulator !== 'function') return '@mediagen/emulator has no startEmulator export yet';
    return null;
  } catch (e) {
    return `@mediagen/emulator does not load (${String(e?.message ?? e)
      .split('\n')[0]
      .slice(0, 120)})`;
  }
}

/** The client-side gate, asked of the built client itself (not of its type files, which the build may split). */
export async function gateMissing() {
  try {
    const { Gate, MediaGenClient } = await import('@mediagen/core');
    if (typeof Gate !== 'function') return '@mediagen/core has no `Gate` yet';
    const gate = new Gate();
    const client = new MediaGenClient({ apiKey: 'svc_live_probe', baseUrl: 'http://127.0.0.1:9', gate });
    return client.gate === gate ? null : "@mediagen/core's client has no `gate` option yet";
  } catch (e) {
    return `@mediagen/core does not load (${String(e?.message ?? e)
      .split('\n')[0]
      .slice(0, 120)})`;
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
