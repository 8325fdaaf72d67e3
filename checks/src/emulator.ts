import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { failure, type Service, startService } from './run';

export const CHECK_KEY = 'svc_live_release_check';
export const CHECK_SECRET = 'whsec_release_check';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers `ok` (default: any 2xx), or fails after `timeoutMs`. */
export async function waitFor(url: string, timeoutMs: number, service?: Service, ok = (res: Response) => res.ok): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (ok(await fetch(url, { signal: AbortSignal.timeout(2000) }))) return;
    } catch {
      // not listening yet
    }
    if (service && service.child.exitCode !== null)
      throw failure(`exited (${service.child.exitCode}) before ${url} answered`, service.output());
    if (Date.now() > deadline) throw failure(`${url} did not answer within ${timeoutMs} ms`, service?.output() ?? '');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface InstalledEmulator {
  url: string;
  service: Service;
  close: () => Promise<void>;
}

export interface EmulatorOptions {
  /** Default: a free port. */
  port?: number;
  /** The account's key. Default `CHECK_KEY`. */
  key?: string;
  /** Its webhook endpoint's signing secret. Default `CHECK_SECRET`. */
  secret?: string;
  /** How to start it, when not from node_modules/.bin (Yarn's PnP has none): the command and its leading arguments. */
  command?: [string, ...string[]];
}

/**
 * The emulator as a user starts it: the `mediagen-emulator` bin from a project's node_modules,
 * one pro account whose webhooks go to `webhookUrl`, time sped up so an image renders quickly.
 */
export async function startInstalledEmulator(
  projectDir: string,
  webhookUrl?: string,
  { port: chosen, key = CHECK_KEY, secret = CHECK_SECRET, command }: EmulatorOptions = {},
): Promise<InstalledEmulator> {
  const port = chosen ?? (await freePort());
  const config = {
    timeScale: 0.02,
    accounts: [
      {
        id: 'acct_release_check',
        tier: 'pro',
        balance: 15_000,
        keys: [{ key }],
        webhooks: webhookUrl ? [{ url: webhookUrl, secret, enabled: true }] : [],
      },
    ],
  };
  const configFile = join(projectDir, `emulator-${port}.json`);
  writeFileSync(configFile, JSON.stringify(config));
  const [bin, ...leading] = command ?? [join(projectDir, 'node_modules', '.bin', 'mediagen-emulator')];
  const service = startService(bin, [...leading, '--port', String(port), '--host', '127.0.0.1', '--config', configFile], {
    cwd: projectDir,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/__emulator/health`, 20_000, service);
  } catch (error) {
    await service.stop();
    throw error;
  }
  return { url, service, close: () => service.stop() };
}
