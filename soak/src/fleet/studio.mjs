// One instance of the built Next studio (apps/next-sample, `next start`) as the fleet runs it: on
// the fleet's PostgreSQL ledger and (through its own cuttable proxy) Redis, draining on SIGTERM
// (NEXT_MANUAL_SIG_HANDLE: instrumentation.ts), dying with the soak (die-with-parent.mjs).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const APP = fileURLToPath(new URL('../../../apps/next-sample/', import.meta.url));
const NEXT_BIN = createRequire(`${APP}package.json`).resolve('next/dist/bin/next');
const DIE_WITH_PARENT = new URL('../die-with-parent.mjs', import.meta.url).href;

/**
 * A named instance on a fixed port (the balancer's config names it), started and stopped as a
 * deploy would: `start()`, `stop()` (SIGTERM, then it drains and exits by itself), `kill()`.
 */
export function studioInstance({ name, port, env, log }) {
  let child;
  let exited;
  const instance = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    /** Starts it and resolves once its GET /api/health answers 200 (bounded: 90 s). */
    async start() {
      child = spawn(process.execPath, ['--import', DIE_WITH_PARENT, NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'], {
        cwd: APP,
        env: { ...process.env, ...env, NODE_ENV: 'production', NEXT_MANUAL_SIG_HANDLE: 'true', NEXT_TELEMETRY_DISABLED: '1' },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      let errors = '';
      child.stderr.on('data', (chunk) => {
        errors = (errors + chunk).slice(-4_000);
      });
      const mine = child;
      exited = new Promise((resolve) => mine.once('exit', (code, signal) => resolve({ code, signal, errors })));
      const end = Date.now() + 90_000;
      while (Date.now() < end) {
        if (mine.exitCode !== null || mine.signalCode !== null) throw new Error(`${name} exited at start: ${errors}`);
        const ok = await fetch(`${instance.url}/api/health`, { signal: AbortSignal.timeout(5_000) }).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`${name} did not answer 200 on /api/health within 90 s: ${errors}`);
    },
    /** SIGTERM: it drains (streams end with their terminal event) and exits; resolves with how (bounded: 60 s, then SIGKILL). */
    async stop() {
      if (!instance.running) return exited;
      const mine = child;
      mine.kill('SIGTERM');
      const timer = setTimeout(() => {
        log(`${name} did not exit within 60 s of SIGTERM: SIGKILL`);
        mine.kill('SIGKILL');
      }, 60_000);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
    /** SIGKILL, no warning; resolves once it is gone. */
    async kill() {
      if (!instance.running) return exited;
      child.kill('SIGKILL');
      return exited;
    },
  };
  return instance;
}
