import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECK_KEY, CHECK_SECRET, freePort, startInstalledEmulator, waitFor } from '../emulator';
import { run, startService } from '../run';
import { ROOT } from '../workspace';
import { binOf, configureProject, createArgs, installArgs, type PackageManager, PM_ENV, runArgs } from './package-managers';
import type { LocalRegistry } from './verdaccio';

/** `<pm> exec <bin>` in each tool's spelling (Yarn's PnP has no node_modules/.bin to call). */
function execArgs(pm: PackageManager, bin: string): string[] {
  if (pm === 'npm') return ['exec', '--', bin];
  if (pm === 'bun') return ['x', bin];
  return pm === 'pnpm' ? ['exec', bin] : ['run', bin];
}

/**
 * The tool's create form (`npm create mediagen@latest`, `pnpm create mediagen`, `yarn create
 * mediagen`, `bun create mediagen`) in `parent`, resolved from the registry only. Returns the
 * written app's @mediagen/* ranges after checking each names a version the registry has.
 */
export async function createApp(
  parent: string,
  pm: PackageManager,
  registry: LocalRegistry,
  template: string,
  versions: Record<string, string>,
): Promise<string> {
  // The create form runs before the project exists: the parent folder carries the registry setting.
  mkdirSync(parent, { recursive: true });
  configureProject(parent, pm, registry);
  const name = `my-${template}-app`;
  // `bun create` fetches create-mediagen from bunfig's registry only through BUN_CONFIG_REGISTRY:
  // it reads neither bunfig.toml's [install] registry nor .npmrc for it (it asked the public registry).
  const env = pm === 'bun' ? { ...PM_ENV, BUN_CONFIG_REGISTRY: registry.url } : PM_ENV;
  await run(binOf(pm), createArgs(pm, name, template), { cwd: parent, env, timeoutMs: 300_000 });
  const dir = join(parent, name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const ours = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).filter(([dep]) => dep.startsWith('@mediagen/'));
  if (ours.length === 0) throw new Error(`${pm} create --template ${template}: the app names no @mediagen package`);
  for (const [dep, range] of ours) {
    if (range !== `^${versions[dep]}`)
      throw new Error(`${pm} create --template ${template}: ${dep} is "${range}", the registry has ${versions[dep]}`);
    const res = await fetch(`${registry.url}${dep.replace('/', '%2f')}/${versions[dep]}`);
    if (!res.ok) throw new Error(`${dep}@${versions[dep]}, named by the written app, is not on the registry (${res.status})`);
  }
  return dir;
}

/**
 * The written app installed with the same tool, built, started against the emulator (from its
 * own devDependencies), one generation submitted through its `POST /api/generations` and seen
 * `completed` in `GET /api/generations` (the samples' contract, checks/README.md).
 */
export async function installAndRun(dir: string, pm: PackageManager, registry: LocalRegistry): Promise<void> {
  configureProject(dir, pm, registry);
  if (pm === 'yarn-pnp' || pm === 'yarn-nm') pinViteForThisMirror(dir);
  const tool = (args: string[]) => run(binOf(pm), args, { cwd: dir, env: PM_ENV, timeoutMs: 600_000 });
  await tool(installArgs(pm));
  await tool(runArgs(pm, 'build'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const emulator = await startInstalledEmulator(dir, `${origin}/api/webhooks/mediagen`, {
    command: [binOf(pm), ...execArgs(pm, 'mediagen-emulator')],
  });
  const app = startService(binOf(pm), runArgs(pm, 'start'), {
    cwd: dir,
    env: {
      ...PM_ENV,
      PORT: String(port),
      MEDIAGEN_API_KEY: CHECK_KEY,
      MEDIAGEN_BASE_URL: emulator.url,
      MEDIAGEN_WEBHOOK_SECRET: CHECK_SECRET,
    },
  });
  try {
    await waitFor(`${origin}/api/generations`, 90_000, app);
    let cookie: string | undefined;
    const asUser = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
      cookie = res.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      return res;
    };
    const submit = await asUser(`${origin}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ model: 'image-fast', prompt: `a fox, from ${pm} create` }),
    });
    const { generation_id: id } = (await submit.json()) as { generation_id?: string };
    if (submit.status !== 202 || !id) throw new Error(`submit answered ${submit.status}\n${app.output().slice(-4000)}`);
    // Rendered on the emulator's sped-up clock; the bound is for a loaded machine, not a timing claim.
    const deadline = Date.now() + 90_000;
    for (;;) {
      const list = (await (await asUser(`${origin}/api/generations`)).json()) as {
        generations: { generation_id: string; status: string }[];
      };
      if (list.generations.find((g) => g.generation_id === id)?.status === 'completed') return;
      if (Date.now() > deadline) throw new Error(`generation ${id} not completed\n${app.output().slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await app.stop();
    await emulator.close();
  }
}

/**
 * This machine's registry mirror lacks `napi-windows-process-start-time`, an optional dependency
 * of vite 8.4.0 (the newest, which the templates' vitest takes). npm, pnpm and Bun skip an optional
 * dependency they cannot fetch; Yarn Berry resolves every optional one for its lockfile and fails
 * on the 404. The written app's Yarn install gets `resolutions` to the vite the workspace is
 * tested with (its lockfile's 8.x), as a Yarn user behind such a mirror would; a mirror of the
 * whole registry needs none (RELEASING.md says so).
 */
function pinViteForThisMirror(dir: string): void {
  const lock = readFileSync(join(ROOT, 'pnpm-lock.yaml'), 'utf8');
  const vite = /^ {2}vite@(8\.[^:(\s]+):/m.exec(lock)?.[1];
  if (!vite) throw new Error("the workspace's pnpm-lock.yaml has no vite 8: pinViteForThisMirror needs updating");
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  pkg.resolutions = { ...(pkg.resolutions as Record<string, string> | undefined), vite };
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
}
