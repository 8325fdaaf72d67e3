import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../src/chromium';
import { CHECK_KEY, CHECK_SECRET, freePort, type InstalledEmulator, startInstalledEmulator, waitFor } from '../src/emulator';
import { fileDeps, npmProject, TOOLS } from '../src/npm';
import { run, type Service, startService } from '../src/run';
import { type PackageJson, publishedPackages, readJson } from '../src/workspace';

// The majors our peer ranges take besides the one each package is developed and tested against
// (React 19, Next 16: every other check): React 18 for @mediagen/react, each older Next major for
// @mediagen/next. Each is installed by plain npm (no --legacy-peer-deps: a peer conflict fails
// the install, as it did for users), at the newest release of that major the peer range allows.
const tarballs = inject('tarballs');
const scratch = inject('scratch');
const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
const pkgOf = (name: string): PackageJson => {
  const found = publishedPackages().find(({ pkg }) => pkg.name === name);
  if (!found) throw new Error(`${name} is not a published package`);
  return found.pkg;
};
const react = pkgOf('@mediagen/react');
const next = pkgOf('@mediagen/next');

const majorOf = (range: string) => Number(/\d+/.exec(range.replace(/^npm:.*@/, ''))?.[0]);
/** Each `||` part of a peer range, by its major: `^14.2.0 || ^15.0.0` -> { 14: '^14.2.0', 15: '^15.0.0' }. */
const rangesByMajor = (range: string) => new Map(range.split('||').map((part) => [majorOf(part.trim()), part.trim()]));
/** The peer's majors older than the one the package is developed against. */
function previousMajors(pkg: PackageJson, peer: string): [number, string][] {
  const current = majorOf(pkg.devDependencies![peer]!);
  return [...rangesByMajor(pkg.peerDependencies![peer]!)].filter(([major]) => major < current);
}
const previousReact = previousMajors(react, 'react');
const previousNext = previousMajors(next, 'next');

/** Beside each older Next major, the React it takes (next@14's peers allow React 18 only). */
const REACT_FOR_NEXT: Record<number, Record<string, string>> = {
  14: { react: '^18.3.1', 'react-dom': '^18.3.1', '@types/react': '^18.3.0', '@types/react-dom': '^18.3.0' },
  15: Object.fromEntries(['react', 'react-dom', '@types/react', '@types/react-dom'].map((name) => [name, next.devDependencies![name]!])),
};

const services: (Service | InstalledEmulator)[] = [];
let launched: Promise<Browser> | undefined;
const browser = () => (launched ??= launchChromium());
afterAll(async () => {
  await (await launched)?.close();
  await Promise.all(services.map((service) => (service as Service).stop?.() ?? (service as InstalledEmulator).close()));
});

const installed = (dir: string, name: string) => readJson(join(dir, 'node_modules', name, 'package.json')).version;
/** The page's state, which each fixture page renders as JSON in `#state`. */
const stateOf = async (page: Page) => JSON.parse((await page.locator('#state').textContent()) ?? 'null');
const imageShown = (page: Page) => page.locator('#output').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0);

/** Whether the emulator delivered `id`'s webhook and the app answered it 2xx. */
async function delivered(emulator: InstalledEmulator, id: string): Promise<boolean> {
  const log = (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${id}`)).json()) as unknown;
  const rows = (Array.isArray(log) ? log : ((log as { deliveries?: unknown[] }).deliveries ?? [])) as {
    outcome: string;
    status: number | null;
  }[];
  return rows.some((row) => row.outcome === 'delivered' && row.status !== null && row.status < 300);
}

describe('the previous majors our peer ranges take', () => {
  it('are React 18 and Next 14 and 15, each with an app below', () => {
    expect(previousReact.map(([major]) => major)).toEqual([18]);
    expect(previousNext.map(([major]) => major)).toEqual([14, 15]);
    expect(majorOf(next.peerDependencies!.react!)).toBe(18);
  });
});

describe.each(previousReact)('@mediagen/react on React %i', (major, range) => {
  it('installs without a peer conflict, a page using the hooks typechecks against its @types/react, and in Chromium it follows a generation to its image', async () => {
    const dir = join(scratch, `react${major}-app`);
    cpSync(join(fixtures, 'react18'), dir, { recursive: true });
    await npmProject(dir, {
      dependencies: {
        ...fileDeps(tarballs, ['@mediagen/core', '@mediagen/react', '@mediagen/emulator']),
        react: range,
        'react-dom': range,
      },
      devDependencies: {
        typescript: TOOLS.typescript,
        esbuild: TOOLS.esbuild,
        '@types/react': `^${major}`,
        '@types/react-dom': `^${major}`,
      },
    });
    for (const name of ['react', 'react-dom', '@types/react']) expect(installed(dir, name)).toMatch(new RegExp(`^${major}\\.`));

    // The page and our declarations (skipLibCheck false) against React 18's types.
    await run(join(dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: dir, timeoutMs: 120_000 });
    await run(
      join(dir, 'node_modules/.bin/esbuild'),
      [
        'page.tsx',
        '--bundle',
        '--format=iife',
        '--outfile=dist/app.js',
        '--define:process.env.NODE_ENV="production"',
        '--log-level=warning',
      ],
      { cwd: dir },
    );

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const emulator = await startInstalledEmulator(dir, `${origin}/api/webhooks/mediagen`);
    services.push(emulator);
    const app = startService(process.execPath, ['server.mjs'], {
      cwd: dir,
      env: { PORT: String(port), MEDIAGEN_API_KEY: CHECK_KEY, MEDIAGEN_BASE_URL: emulator.url, MEDIAGEN_WEBHOOK_SECRET: CHECK_SECRET },
    });
    services.push(app);
    await waitFor(`${origin}/`, 20_000, app);

    const page = await (await browser()).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/`);
    // The estimate first (the hooks talk to the handler), then one submit followed to its end.
    await expect.poll(async () => (await stateOf(page)).credits, { timeout: 30_000 }).toBe(4);
    expect((await stateOf(page)).react).toMatch(new RegExp(`^${major}\\.`));
    await page.click('#go');
    await expect.poll(async () => (await stateOf(page)).status, { timeout: 30_000 }).toBe('completed');
    await expect.poll(() => imageShown(page), { timeout: 30_000 }).toBe(true);
    const state = await stateOf(page);
    expect(state).toMatchObject({ error: null, finished: ['completed'] });
    await expect.poll(() => delivered(emulator, state.id), { timeout: 30_000 }).toBe(true);
    expect(errors, app.output()).toEqual([]);
    await page.close();
  });
});

describe.each(previousNext)('@mediagen/next on Next %i', (major, range) => {
  it('installs without a peer conflict, `next build` (type check included) passes, and under `next start`: the catch-all route, the hooks, server actions (redirect included) and the webhook route alone', async () => {
    const dir = join(scratch, `next${major}-app`);
    cpSync(join(fixtures, 'next-majors'), dir, { recursive: true });
    await npmProject(dir, {
      dependencies: {
        ...fileDeps(tarballs, ['@mediagen/core', '@mediagen/react', '@mediagen/next', '@mediagen/emulator']),
        next: range,
        react: REACT_FOR_NEXT[major]!.react!,
        'react-dom': REACT_FOR_NEXT[major]!['react-dom']!,
      },
      devDependencies: {
        typescript: TOOLS.typescript,
        '@types/node': TOOLS['@types/node'],
        '@types/react': REACT_FOR_NEXT[major]!['@types/react']!,
        '@types/react-dom': REACT_FOR_NEXT[major]!['@types/react-dom']!,
      },
      scripts: { build: 'next build', start: 'next start' },
    });
    expect(installed(dir, 'next')).toMatch(new RegExp(`^${major}\\.`));
    // `next build` loads the route, whose client reads its settings then.
    await run('npm', ['run', 'build'], {
      cwd: dir,
      timeoutMs: 240_000,
      env: { NEXT_TELEMETRY_DISABLED: '1', MEDIAGEN_API_KEY: CHECK_KEY, MEDIAGEN_BASE_URL: 'http://127.0.0.1:9' },
    });

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const emulator = await startInstalledEmulator(dir, `${origin}/api/webhooks/mediagen`);
    services.push(emulator);
    const app = startService('npm', ['start', '--', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: dir,
      env: {
        NEXT_TELEMETRY_DISABLED: '1',
        MEDIAGEN_API_KEY: CHECK_KEY,
        MEDIAGEN_BASE_URL: emulator.url,
        MEDIAGEN_WEBHOOK_SECRET: CHECK_SECRET,
      },
    });
    services.push(app);
    await waitFor(`${origin}/done`, 60_000, app);

    // The catch-all route: a submit, then status reads (never a cached one) until completed
    // through the webhook; another user's read is a 404.
    const ada = { cookie: 'uid=ada' };
    const submit = await fetch(`${origin}/api/generations`, {
      method: 'POST',
      headers: { ...ada, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ model: 'image-fast', prompt: `a fox, on Next ${major}` }),
    });
    expect(submit.status, app.output()).toBe(202);
    const { generation_id: id } = (await submit.json()) as { generation_id: string };
    const read = async (cookie: string) => fetch(`${origin}/api/generations/${id}`, { headers: { cookie } });
    await expect
      .poll(async () => ((await (await read(ada.cookie)).json()) as { status: string }).status, { timeout: 30_000 })
      .toBe('completed');
    await expect.poll(() => delivered(emulator, id), { timeout: 30_000 }).toBe(true);
    expect((await read('uid=bob')).status).toBe(404);

    // The page: useGenerate + useGeneration from @mediagen/next/client, then a server action
    // (its user from next/headers), then an action whose handler redirects.
    const context = await (await browser()).newContext();
    await context.addCookies([{ name: 'uid', value: 'ada', url: origin }]);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/`);
    await expect.poll(async () => (await stateOf(page)).ready, { timeout: 30_000 }).toBe(true);
    await page.click('#submit');
    await expect.poll(async () => (await stateOf(page)).status, { timeout: 30_000 }).toBe('completed');
    await expect.poll(() => imageShown(page), { timeout: 30_000 }).toBe(true);
    const byHook = (await stateOf(page)).id as string;
    // Followed by the route with ada's cookie: the action recorded it as hers.
    await page.click('#action');
    await expect
      .poll(
        async () => {
          const state = await stateOf(page);
          return state.id !== byHook ? (state.status ?? state.error) : null;
        },
        { timeout: 30_000 },
      )
      .toBe('completed');
    await page.click('#redirect');
    await page.waitForURL(`${origin}/done`, { timeout: 30_000 });
    expect(errors, app.output()).toEqual([]);
    await context.close();

    const forged = await fetch(`${origin}/webhook-alone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
      body: JSON.stringify({ generation_id: id, status: 'completed' }),
    });
    expect(forged.status).toBe(401);
  });
});
