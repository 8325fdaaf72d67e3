import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../src/chromium';
import { CHECK_KEY, CHECK_SECRET, freePort, type InstalledEmulator, startInstalledEmulator, waitFor } from '../src/emulator';
import { fileDeps, NPM_INSTALL, npmProject } from '../src/npm';
import {
  installArgs,
  installedNames,
  type QuickStart,
  readQuickStart,
  splitEnv,
  tarballOverrides,
  withoutMediagenEnv,
  writeFiles,
  writeNextScaffold,
} from '../src/quick-starts';
import { failure, run, type Service, startService } from '../src/run';

// The Next.js, Express and Hono quick starts (docs/src/start/*.md) run as written. Each page's
// file blocks (a first line naming the path: `// server.ts`, `<!-- index.html -->`) are written to
// a fresh folder from the page's own text; its ```sh lines are run: `npm init -y` and the
// `npm install` lines (our packages from their tarballs, the others at the workspace's versions).
// No app code is written here beyond the create-next-app scaffold the Next page starts from
// (writeNextScaffold: package.json, tsconfig, a bare layout). Then each app is started against a
// real emulator, completes one generation through POST /api/generations (seen `completed` in
// GET /api/generations, the webhook delivered and answered 2xx), and two browsers each get their
// own user from the page's cookie and see only their own generations.
//  - Next: the page's `npm run dev` with no MEDIAGEN_* at all (one generation, no browsers), then
//    `next build` with NODE_ENV=production and no MEDIAGEN_* at all, then `next start` with the
//    three variables the page's production section names.
//  - Express, Hono: the page's `npx tsx server.ts` in development with no MEDIAGEN_* at all.
// In development the emulator runs on its default port 4010 as the page starts it; when 4010 is
// taken (another emulator on this machine), on a free port with MEDIAGEN_BASE_URL, MEDIAGEN_API_KEY
// and MEDIAGEN_WEBHOOK_SECRET (what the pages name for another service) instead.
// Waits poll with generous deadlines only as a safety net: nothing asserts on elapsed time.
// QUICK_START_SCREENSHOTS=<dir> saves each page after its own Generate button's result shows.
const tarballs = inject('tarballs');
const base = join(inject('scratch'), 'quick-starts');

/** The emulator's default account, what `npx -p @mediagen/emulator mediagen-emulator` serves (its README). */
const EMULATOR_PORT = 4010;
const EMULATOR_DEMO_KEY = 'svc_live_emulator_demo';
const EMULATOR_DEMO_SECRET = 'whsec_emulator_demo';
const NO_MEDIAGEN = withoutMediagenEnv();
const SCREENSHOTS = process.env.QUICK_START_SCREENSHOTS;

let emulatorDir: string;
let browser: Browser;
const running: { stop: () => Promise<void> }[] = [];

beforeAll(async () => {
  // The page's `npx -p @mediagen/emulator mediagen-emulator` would fetch it from the registry,
  // where it is not yet: the same bin, installed from its tarball.
  emulatorDir = await npmProject(join(base, 'emulator'), { dependencies: fileDeps(tarballs, ['@mediagen/emulator', '@mediagen/core']) });
  browser = await launchChromium();
});

afterAll(async () => {
  await Promise.all(running.splice(0).map((service) => service.stop()));
  await browser?.close();
});

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The page's emulator line, checked: the command a reader can run, and the webhook URL it gives. */
function emulatorLine(page: QuickStart): void {
  const line = page.commands.find((command) => command.includes('mediagen-emulator'));
  expect(line, `${page.page} starts the emulator`).toBeDefined();
  const { names, command } = splitEnv(line!);
  // `npx mediagen-emulator` alone would look for an npm package named mediagen-emulator.
  expect(command).toBe('npx -p @mediagen/emulator mediagen-emulator');
  expect(names).toEqual(['MEDIAGEN_WEBHOOK_URL']);
  expect(line).toContain('MEDIAGEN_WEBHOOK_URL=http://127.0.0.1:3000/api/webhooks/mediagen ');
}

/**
 * The emulator as the page's "Run it" starts it: its default port and account (demo key and
 * webhook secret), so the app runs with no MEDIAGEN_* env at all. When port 4010 is taken on this
 * machine: a free port, and the variables the page names for another service.
 */
async function devEmulator(name: string, webhookUrl: string): Promise<{ emulator: InstalledEmulator; env: Record<string, string> }> {
  if (await portIsFree(EMULATOR_PORT)) {
    const emulator = await startInstalledEmulator(emulatorDir, webhookUrl, {
      port: EMULATOR_PORT,
      key: EMULATOR_DEMO_KEY,
      secret: EMULATOR_DEMO_SECRET,
    }).catch((error: unknown) => console.warn(`${name}: the emulator could not take port ${EMULATOR_PORT}: ${error}`));
    if (emulator) {
      running.push({ stop: emulator.close });
      return { emulator, env: {} };
    }
  }
  console.warn(`${name}: port ${EMULATOR_PORT} is taken on this machine: the emulator on a free port, the app with MEDIAGEN_* env`);
  const emulator = await startInstalledEmulator(emulatorDir, webhookUrl);
  running.push({ stop: emulator.close });
  return { emulator, env: { MEDIAGEN_BASE_URL: emulator.url, MEDIAGEN_API_KEY: CHECK_KEY, MEDIAGEN_WEBHOOK_SECRET: CHECK_SECRET } };
}

/** The page's `npm install` lines, run in `dir` (after `npm init -y` where the page has it). */
async function install(page: QuickStart, dir: string): Promise<void> {
  const lines = page.commands.filter((command) => /^npm (install|i|add)\s/.test(command));
  expect(lines.length, `${page.page} has an npm install line`).toBeGreaterThan(0);
  const direct = lines.flatMap(installedNames);
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, `${JSON.stringify({ ...pkg, overrides: tarballOverrides(tarballs, direct) }, null, 2)}\n`);
  for (const line of lines) await run('npm', [...NPM_INSTALL, ...installArgs(line, tarballs)], { cwd: dir, timeoutMs: 300_000 });
}

interface User {
  cookie: string | undefined;
}

async function asUser(user: User, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = { ...(init.headers as Record<string, string>), ...(user.cookie ? { cookie: user.cookie } : {}) };
  const res = await fetch(url, { ...init, headers });
  user.cookie = res.headers.get('set-cookie')?.split(';')[0] ?? user.cookie;
  return res;
}

interface Listed {
  generation_id: string;
  status: string;
}

/** Polls `read` until `done`; the deadline is a safety net for a hung app, not a measurement. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, app: Service): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (app.child.exitCode !== null || Date.now() > deadline)
      throw failure(`${what}: still ${JSON.stringify(value)}`, `--- app output\n${app.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What every quick start must do once it serves at `origin`. */
async function exercise(name: string, origin: string, emulator: InstalledEmulator, app: Service, { browsers = true } = {}): Promise<void> {
  // One generation through the app's routes, as the page's browser would: its user from GET /.
  const user: User = { cookie: undefined };
  const home = await asUser(user, `${origin}/`);
  expect(home.status).toBe(200);
  expect(user.cookie, 'GET / sets the user cookie').toBeDefined();
  const submit = await asUser(user, `${origin}/api/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ model: 'image-fast', prompt: `a fox, from the ${name} quick start` }),
  });
  const submitted = (await submit.json()) as { generation_id?: string };
  expect(submit.status, JSON.stringify(submitted)).toBe(202);
  const id = submitted.generation_id!;
  const listed = await eventually(
    async () => {
      const { generations } = (await (await asUser(user, `${origin}/api/generations`)).json()) as { generations: Listed[] };
      return generations.find((g) => g.generation_id === id)?.status;
    },
    (status) => status === 'completed' || status === 'failed',
    `generation ${id} in GET /api/generations`,
    app,
  );
  expect(listed).toBe('completed');

  // The emulator delivered its webhook and the app verified it (2xx): the secret the page relies on matches.
  const delivered = await eventually(
    async () => {
      const log = (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${id}`)).json()) as unknown;
      return (Array.isArray(log) ? log : ((log as { deliveries?: unknown[] }).deliveries ?? [])) as {
        outcome: string;
        status: number | null;
      }[];
    },
    (rows) => rows.some((row) => ['delivered', 'rejected', 'failed', 'abandoned'].includes(row.outcome)), // past retries
    `the webhook of ${id}`,
    app,
  );
  expect(
    delivered.some((row) => row.outcome === 'delivered' && row.status !== null && row.status < 300),
    JSON.stringify(delivered),
  ).toBe(true);

  if (browsers) await twoBrowsers(name, origin);

  // The page's health route: nothing missing in the configuration the app runs with.
  const health = await fetch(`${origin}/api/health`);
  expect(health.status, `GET /api/health: ${await health.clone().text()}`).toBe(200);
  expect(await health.json()).toMatchObject({ ok: true });
}

/** Two browsers: each opens the page (its cookie names its user), submits from the page, and lists only its own. */
async function twoBrowsers(name: string, origin: string): Promise<void> {
  const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
  try {
    const errors: string[] = [];
    const users = await Promise.all(
      contexts.map(async (context, i) => {
        const page = await context.newPage();
        page.on('pageerror', (error) => errors.push(String(error)));
        await page.goto(`${origin}/`);
        expect((await context.cookies(origin)).length, 'the page set a cookie').toBeGreaterThan(0);
        const { status, body } = await page.evaluate(async (prompt) => {
          const res = await fetch('/api/generations', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
            body: JSON.stringify({ model: 'image-fast', prompt }),
          });
          return { status: res.status, body: (await res.json()) as { generation_id?: string } };
        }, `browser ${i} on the ${name} quick start`);
        expect(status, JSON.stringify(body)).toBe(202);
        return { page, id: body.generation_id! };
      }),
    );
    expect(users[0]!.id).not.toBe(users[1]!.id);
    for (const { page, id: own } of users) {
      const listedIds = await page.evaluate(async () => {
        const { generations } = (await (await fetch('/api/generations')).json()) as { generations: { generation_id: string }[] };
        return generations.map((g) => g.generation_id);
      });
      expect(listedIds).toEqual([own]);
    }

    // The page's own button: it submits, and the output of that very generation shows up (its
    // signed link names the generation).
    const page: Page = users[0]!.page;
    const [posted] = await Promise.all([
      page.waitForResponse((res) => res.request().method() === 'POST' && new URL(res.url()).pathname === '/api/generations'),
      page.click('button'),
    ]);
    const clicked = (await posted.json()) as { generation_id?: string };
    expect(posted.status(), JSON.stringify(clicked)).toBe(202);
    await page.locator(`img[src*="${clicked.generation_id}"]`).waitFor({ state: 'visible', timeout: 90_000 });
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    }
    expect(errors).toEqual([]);
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
  }
}

async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((service) => service.stop()));
}

describe('Next.js quick start (docs/src/start/nextjs.md)', () => {
  it('builds with no MEDIAGEN_* env, starts with the production env the page names, completes a generation, one user per browser', async () => {
    const page = readQuickStart('docs/src/start/nextjs.md');
    const paths = page.files.map((file) => file.path);
    for (const path of ['lib/mediagen.ts', 'app/api/[...mediagen]/route.ts', 'proxy.ts', 'instrumentation.ts'])
      expect(paths).toContain(path);
    expect(page.commands[0]).toMatch(/^npx create-next-app@latest my-app\b/);
    const dir = join(base, 'next', 'my-app');
    mkdirSync(dir, { recursive: true });
    writeNextScaffold(dir, paths);
    writeFiles(dir, page.files);
    await install(page, dir);
    emulatorLine(page);

    // "Run it": `npm run dev` with no MEDIAGEN_* env, against the emulator as the page starts it.
    expect(page.commands).toContain('npm run dev');
    {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const { emulator, env } = await devEmulator('next', `${origin}/api/webhooks/mediagen`);
      const app = startService('npm', ['run', 'dev', '--', '-p', String(port), '-H', '127.0.0.1'], {
        cwd: dir,
        env: { ...NO_MEDIAGEN, NODE_ENV: undefined, NEXT_TELEMETRY_DISABLED: '1', ...env },
      });
      running.push(app);
      try {
        await waitFor(`${origin}/`, 120_000, app);
        await exercise('next-dev', origin, emulator, app, { browsers: false });
      } finally {
        await stopAll();
      }
      rmSync(join(dir, 'data'), { recursive: true, force: true }); // the dev emulator's generations: gone with it
    }

    // `next build` with no secrets at all (a CI build, a preview deploy).
    expect(page.commands).toContain('npm run build');
    await run('npm', ['run', 'build'], {
      cwd: dir,
      timeoutMs: 240_000,
      env: { ...NO_MEDIAGEN, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
    });

    // `next start`: with exactly the variables the page's production line sets.
    const start = page.commands.map(splitEnv).find(({ command }) => command === 'npm start');
    expect(start?.names.sort()).toEqual(['MEDIAGEN_API_KEY', 'MEDIAGEN_BASE_URL', 'MEDIAGEN_WEBHOOK_SECRET']);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const emulator = await startInstalledEmulator(emulatorDir, `${origin}/api/webhooks/mediagen`);
    running.push({ stop: emulator.close });
    const app = startService('npm', ['start', '--', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: dir,
      env: {
        ...NO_MEDIAGEN,
        NODE_ENV: undefined,
        NEXT_TELEMETRY_DISABLED: '1',
        MEDIAGEN_BASE_URL: emulator.url,
        MEDIAGEN_API_KEY: CHECK_KEY,
        MEDIAGEN_WEBHOOK_SECRET: CHECK_SECRET,
      },
    });
    running.push(app);
    try {
      await waitFor(`${origin}/api/health`, 60_000, app, () => true);
      await exercise('next', origin, emulator, app);
    } finally {
      await stopAll();
    }
  });
});

describe.each([
  ['express', 'docs/src/start/express.md'],
  ['hono', 'docs/src/start/hono.md'],
])('%s quick start (%s)', (name, pagePath) => {
  it('installs, runs with `npx tsx server.ts` and no MEDIAGEN_* env, completes a generation, one user per browser', async () => {
    const page = readQuickStart(pagePath);
    expect(page.files.map((file) => file.path)).toContain('server.ts');
    expect(page.commands.slice(0, 3)).toEqual(['mkdir my-app', 'cd my-app', 'npm init -y']);
    const dir = join(base, name, 'my-app');
    mkdirSync(dir, { recursive: true });
    await run('npm', ['init', '-y'], { cwd: dir });
    writeFiles(dir, page.files);
    await install(page, dir);
    emulatorLine(page);
    const runLine = page.commands.find((command) => command.startsWith('npx tsx '));
    expect(runLine, `${pagePath} says how to run the server`).toBe('npx tsx server.ts');

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const webhookUrl = `${origin}/api/webhooks/mediagen`;
    const { emulator, env } = await devEmulator(name, webhookUrl);
    const [npx, ...args] = runLine!.split(/\s+/);
    const app = startService(npx!, args, { cwd: dir, env: { ...NO_MEDIAGEN, NODE_ENV: undefined, PORT: String(port), ...env } });
    running.push(app);
    try {
      await waitFor(`${origin}/`, 60_000, app);
      await exercise(name, origin, emulator, app);
    } finally {
      await stopAll();
    }
  });
});
