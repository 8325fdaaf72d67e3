// The soak's own Redis, on a free port, so restarting it never touches anyone else's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export async function startOwnRedis(port) {
  const dir = mkdtempSync(join(tmpdir(), 'mediagen-soak-redis-'));
  const pidfile = join(dir, 'redis.pid');
  const start = () =>
    execFileSync('redis-server', [
      '--port',
      String(port),
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'yes',
      '--pidfile',
      pidfile,
      '--dir',
      dir,
    ]);
  const ping = async () => {
    for (let i = 0; i < 100; i++) {
      const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => {});
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        // not up yet
      } finally {
        probe.disconnect();
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on port ${port} did not start`);
  };
  const stop = () => {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
    } catch {
      // Already down: fall back to its own pid, never a broad kill.
      try {
        process.kill(Number(readFileSync(pidfile, 'utf8')), 'SIGTERM');
      } catch {}
    }
  };
  start();
  await ping();
  return {
    url: `redis://127.0.0.1:${port}`,
    /** Down without saving (its data is lost), then up again empty. */
    restart: async (downMs) => {
      stop();
      await new Promise((r) => setTimeout(r, downMs));
      start();
      await ping();
    },
    close: () => {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
