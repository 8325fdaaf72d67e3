// Child processes for the measurements that must not share a process with what they measure.
import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const here = (rel) => fileURLToPath(new URL(rel, import.meta.url));

/** Forks `script` with IPC and resolves once it sends `{ ready: true, ... }`. */
export function startChild(script, { args = [], execArgv = [], env, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, { execArgv, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${script} did not report ready within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it was ready`));
    });
    child.on('message', function onMessage(msg) {
      if (msg?.ready) {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.removeAllListeners('exit');
        resolve({
          child,
          info: msg,
          /** Sends a request over IPC and resolves with the reply carrying the same id. */
          ask(payload, askTimeoutMs = 120_000) {
            const id = Math.random().toString(36).slice(2);
            return new Promise((res, rej) => {
              const t = setTimeout(() => rej(new Error(`no reply to ${JSON.stringify(payload).slice(0, 80)}`)), askTimeoutMs);
              child.on('message', function reply(m) {
                if (m && m.id === id) {
                  clearTimeout(t);
                  child.off('message', reply);
                  if (m.error) rej(new Error(m.error));
                  else res(m.result);
                }
              });
              child.send({ ...payload, id });
            });
          },
          stop() {
            return new Promise((res) => {
              if (child.exitCode !== null || child.signalCode !== null) return res();
              child.once('exit', () => res());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 3000).unref();
            });
          },
        });
      }
    });
  });
}

/** Runs a node script to completion; resolves with { code, stdout, stderr, wallMs }. */
export function runNode(args, { cwd, env, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, wallMs: performance.now() - t0 });
    });
  });
}
