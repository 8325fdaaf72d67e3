import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';

export const KEY = 'svc_live_studio_test';
export const SECRET = 'whsec_studio_test';
export const ACCOUNT = 'acct_studio';
const APP = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A port free now, for a server that must be named before it listens (the emulator needs the app's
 * webhook URL first). Drawn below Linux's ephemeral range (32768+), where the kernel never puts the
 * local end of an outgoing connection: a port the kernel hands out for `listen(0)` can be taken by
 * any of the many connections a loaded machine opens before the app binds it (EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
}

/** `next start` of the built studio (built once per run by turbo: test depends on build). */
export async function startStudio(
  env: Record<string, string>,
  port: number,
): Promise<{ origin: string /** The `next-server` process (whose RSS a test can read). */; pid: number; stop(): Promise<void> }> {
  if (!existsSync(join(APP, '.next', 'BUILD_ID')))
    throw new Error('The studio is not built: run `pnpm turbo run test --filter=next-sample` (it builds first).');
  const child: ChildProcess = spawn(
    process.execPath,
    [join(APP, 'node_modules/next/dist/bin/next'), 'start', '--port', String(port), '--hostname', '127.0.0.1'],
    {
      cwd: APP,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${origin}/api/generations`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('next start did not answer within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    origin,
    pid: child.pid as number,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** `fetch` that keeps the studio's user cookie (the one cookie it sets), as a browser does. */
export function cookieJar(): (url: string, init?: RequestInit) => Promise<Response> {
  let cookie: string | undefined;
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0];
    return res;
  };
}

/** A real emulator whose account sends webhooks to a real `next start` of the studio. */
export async function startStack(
  options: {
    timeScale?: number /** Where the emulator sends webhooks (a proxy in front of the studio); default the studio's receiver. */;
    webhookUrl?: string;
    /** More of the studio's environment (`MEDIAGEN_USER_CREDITS`). */
    env?: Record<string, string>;
  } = {},
) {
  const port = await freePort();
  const webhookUrl = options.webhookUrl ?? `http://127.0.0.1:${port}/api/webhooks/mediagen`;
  const emulatorOn = (emulatorPort: number) =>
    startEmulator({
      port: emulatorPort,
      // The studio serves uploaded inputs on its own loopback address, as `pnpm demo` does.
      allowLoopbackInputs: true,
      config: {
        timeScale: options.timeScale ?? 0.02,
        accounts: [
          {
            id: ACCOUNT,
            tier: 'pro',
            balance: 15_000,
            keys: [{ key: KEY }],
            webhooks: [{ url: webhookUrl, secret: SECRET, enabled: true }],
          },
        ],
      },
    });
  let emulator: RunningEmulator = await emulatorOn(0);
  const dir = mkdtempSync(join(tmpdir(), 'next-sample-'));
  const env = {
    MEDIAGEN_API_KEY: KEY,
    MEDIAGEN_BASE_URL: emulator.url,
    MEDIAGEN_WEBHOOK_SECRET: SECRET,
    MEDIAGEN_SAMPLE_DB: join(dir, 'generations.db'),
    MEDIAGEN_UPLOADS_DIR: join(dir, 'uploads'),
    PORT: String(port),
    ...options.env,
  };
  let studio = await startStudio(env, port);
  /** One browser's user: its cookie set on first contact and sent back after, as a browser does. */
  const user = () => {
    const send = cookieJar();
    const json = async <T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T }> => {
      const res = await send(studio.origin + path, init);
      return { status: res.status, body: (await res.json()) as T };
    };
    return { fetch: send, json, list: async () => (await json<{ generations: any[] }>('/api/generations')).body.generations };
  };
  const first = user();
  return {
    origin: studio.origin,
    webhookUrl,
    get emulator() {
      return emulator;
    },
    /** Another browser (another user). */
    user,
    /** As the stack's first user. */
    json: first.json,
    fetch: first.fetch,
    list: first.list,
    account: async () =>
      (await (await fetch(`${emulator.url}/__emulator/accounts/${ACCOUNT}`)).json()) as { balance: number; ledger: { type: string }[] },
    deliveries: async (id: string) =>
      (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${id}`)).json()).deliveries as Array<{
        status: number | null;
        outcome: string;
        url: string;
      }>,
    /** Stops and starts `next start` again on the same database. */
    async restart() {
      await studio.stop();
      studio = await startStudio(env, port);
    },
    /** The service forgets everything: the studio stops, the emulator starts afresh on its port, the studio starts again. */
    async restartEmulator() {
      await studio.stop();
      const emulatorPort = Number(new URL(emulator.url).port);
      await emulator.close();
      emulator = await emulatorOn(emulatorPort);
      studio = await startStudio(env, port);
    },
    /** Moves the emulator's clock (link expiry is counted on it). */
    advanceClock: async (ms: number) =>
      (
        await fetch(`${emulator.url}/__emulator/clock`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ advanceMs: ms }),
        })
      ).json(),
    async close() {
      await studio.stop();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;
