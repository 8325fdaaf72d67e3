import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitFor } from '../emulator';
import { run, type Service, startService } from '../run';
import { TOOL_BINS, TOOLS_DIR } from './tools';

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** Its folder (storage, config), in the run's scratch: per-run state of the tools goes beside it. */
  dir: string;
  /** A token of the user the run created, for publishing. */
  token: string;
  service: Service;
  stop: () => Promise<void>;
}

/**
 * Which names the local registry keeps to itself: ours. They are never looked up upstream, so a
 * consumer can only get what the release flow published here (a name taken on the public
 * registry, or a typo, fails instead of installing someone else's package).
 */
export const LOCAL_ONLY = ['@mediagen/*', 'create-mediagen'];

/**
 * Verdaccio on a free port, with its storage and htpasswd file in `dir`, proxying every other
 * name to the registry npm is configured for on this machine (an uplink, cached in `dir`). One
 * user is created by the run itself (`PUT /-/user/org.couchdb.user:<name>`, as `npm adduser`
 * does); publishing needs its token, reading needs none.
 */
export async function startRegistry(dir: string): Promise<LocalRegistry> {
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const port = await freePort();
  const upstream = (await run('npm', ['config', 'get', 'registry'], { cwd: TOOLS_DIR })).stdout.trim();
  const local = LOCAL_ONLY.map((name) => `  '${name}':\n    access: $all\n    publish: $authenticated\n    unpublish: $authenticated\n`);
  const config = [
    `storage: ${JSON.stringify(join(dir, 'storage'))}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
    '    max_users: 1',
    'uplinks:',
    '  upstream:',
    `    url: ${JSON.stringify(upstream)}`,
    // Installs of five frameworks at once ask for many packages: a slow answer is not a dead uplink.
    '    timeout: 60s',
    '    max_fails: 20',
    'packages:',
    ...local,
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    '    proxy: upstream',
    'server:',
    '  keepAliveTimeout: 60',
    'web:',
    '  enable: false',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n');
  const configFile = join(dir, 'config.yaml');
  writeFileSync(configFile, config);
  const service = startService(TOOL_BINS.verdaccio, ['--config', configFile, '--listen', `127.0.0.1:${port}`], { cwd: dir });
  const url = `http://127.0.0.1:${port}/`;
  try {
    await waitFor(`${url}-/ping`, 60_000, service);
    const token = await createUser(url);
    return { url, dir, token, service, stop: () => service.stop() };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

async function createUser(url: string): Promise<string> {
  const name = 'release-check';
  const res = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: `pw-${crypto.randomUUID()}`, type: 'user', roles: [] }),
  });
  const body = (await res.json()) as { token?: string; error?: string };
  if (!res.ok || !body.token) throw new Error(`the local registry refused to create its user: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

/** `.npmrc` lines that point npm, pnpm and bun at the registry (yarn Berry reads its own .yarnrc.yml). */
export function npmrc(registry: LocalRegistry, withToken = false): string {
  const host = registry.url.replace(/^https?:/, '');
  return [`registry=${registry.url}`, ...(withToken ? [`${host}:_authToken=${registry.token}`] : []), ''].join('\n');
}
