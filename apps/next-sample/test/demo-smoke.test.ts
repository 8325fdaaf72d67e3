import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../../scripts/demo.mjs', import.meta.url));
/** The demo's own worst case: studio start 30 s + settle 60 s + delivery 20 s + record 5 s + stop 10 s. */
const DEMO_TIMEOUT_MS = 150_000;
/** Above the demo's timeout, so the timeout below (which kills and reports) always fires first. */
const TEST_TIMEOUT_MS = DEMO_TIMEOUT_MS + 30_000;

/** Whether any process of the group (the demo and what it started: `next start`) is still there. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the whole group (the demo stops the studio and its emulator), SIGKILL after 5 s. */
async function killGroup(pgid: number): Promise<void> {
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pgid, s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + 5_000;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (groupAlive(pgid)) signal('SIGKILL');
}

// `pnpm demo --smoke` is the root `demo` script's build (turbo, cached here: this test runs after
// the studio's build) followed by this script; CI runs it through this test.
describe('pnpm demo --smoke', () => {
  let child: ChildProcess | undefined;

  // Whatever happens (a failed assertion, the timeout, vitest's own timeout), nothing the demo
  // started outlives the test: it runs in its own process group, and the group is ended.
  afterEach(async () => {
    const pid = child?.pid;
    child = undefined;
    if (pid && groupAlive(pid)) await killGroup(pid);
  });

  it(
    'starts the emulator and the studio wired together, gets one image by webhook, prints it, exits 0, and leaves no process behind',
    async () => {
      const demo = spawn(process.execPath, [DEMO, '--smoke'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child = demo;
      const pgid = demo.pid!;
      let stdout = '';
      demo.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      demo.stderr!.pipe(process.stderr);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        void killGroup(pgid);
      }, DEMO_TIMEOUT_MS);
      const closed = new Promise<void>((resolve) => demo.once('close', () => resolve()));
      const code = await new Promise<number | null>((resolve) => demo.once('exit', (exitCode) => resolve(exitCode)));
      // Right as the demo exits (not at 'close', which also waits for the studio's inherited stderr).
      const leftBehind = groupAlive(pgid);
      clearTimeout(timer);
      await closed;

      expect(timedOut, `the demo ran longer than ${DEMO_TIMEOUT_MS / 1000} s`).toBe(false);
      expect(code, stdout).toBe(0);
      // The demo waited for the studio (`next start`) to exit before exiting itself.
      expect(leftBehind, 'a process the demo started was still running when it exited').toBe(false);
      expect(stdout).toMatch(/completed via webhook \(delivery delivered, HTTP 200\)/);
      expect(stdout).toMatch(/output URL\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1\/output\/[0-9a-f-]{36}\/\d+\/[\w-]+\/0\/image-fast-1\.png/);
      expect(stdout).toMatch(/credits charged\s+4\b/);
    },
    TEST_TIMEOUT_MS,
  );
});
