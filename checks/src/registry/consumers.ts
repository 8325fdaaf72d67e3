import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deliverOne } from '../deliver';
import { CHECK_KEY, CHECK_SECRET, freePort, waitFor } from '../emulator';
import { TOOLS } from '../npm';
import { run, startService } from '../run';
import { type PackageJson, publishedPackages } from '../workspace';
import { binOf, configureProject, installArgs, type PackageManager, PM_ENV, runArgs, updateArgs } from './package-managers';
import type { LocalRegistry } from './verdaccio';

export type Framework = 'express' | 'fastify' | 'hono' | 'nestjs' | 'next';

export const FRAMEWORKS: Framework[] = ['express', 'fastify', 'hono', 'nestjs', 'next'];

export const FRAMEWORK_TITLES: Record<Framework, string> = {
  express: 'Express',
  fastify: 'Fastify',
  hono: 'Hono',
  nestjs: 'NestJS',
  next: 'Next.js',
};

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** Where each app's source comes from: the registry ones, and the Nest and Next apps the tarball checks use. */
const SOURCES: Record<Framework, string> = {
  express: 'registry/express',
  fastify: 'registry/fastify',
  hono: 'registry/hono',
  nestjs: 'nest',
  next: 'next',
};

function adapterOf(framework: Framework): PackageJson {
  const found = publishedPackages().find(({ pkg }) => pkg.name === `@mediagen/${framework}`);
  if (!found) throw new Error(`@mediagen/${framework} is not a published package`);
  return found.pkg;
}

/** The version the adapter is developed against (its devDependency), for what the app adds beside it. */
function devVersion(adapter: PackageJson, name: string): string {
  const range = adapter.devDependencies?.[name];
  if (!range) throw new Error(`${adapter.name} has no devDependency on ${name}`);
  return range;
}

/**
 * The app's package.json: the adapter, core and the emulator by name at `^<released version>`
 * (what `npm install @mediagen/x` writes), the framework and what the app imports at the versions
 * the adapter is developed against, a build and a start script, the emulator's bin as a script
 * (Yarn's PnP has no node_modules/.bin), and a script that prints the adapter's installed version.
 */
function manifest(framework: Framework, pm: PackageManager, versions: Record<string, string>): Record<string, unknown> {
  const adapter = adapterOf(framework);
  const ours = (name: string) => [name, `^${versions[name]}`];
  const pin = (...names: string[]) => names.map((name) => [name, devVersion(adapter, name)]);
  const extra: Record<Framework, string[]> = {
    express: ['express', '@types/express'],
    fastify: ['fastify'],
    hono: ['hono', '@hono/node-server'],
    nestjs: ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', 'reflect-metadata', 'rxjs'],
    next: ['next', 'react', 'react-dom'],
  };
  const next = framework === 'next';
  return {
    name: `consumer-${framework}`,
    version: '1.0.0',
    private: true,
    type: 'module',
    scripts: {
      // Next 16 builds with Turbopack, which does not resolve through Yarn's PnP ("Could not find
      // the Next.js package (next/package.json)"); its webpack build (`--webpack`) does.
      build: next ? (pm === 'yarn-pnp' ? 'next build --webpack' : 'next build') : 'tsc -p tsconfig.json',
      start: next ? 'next start -H 127.0.0.1' : 'node dist/main.js',
      emulator: 'mediagen-emulator',
      'adapter-version': `node -e "console.log(require('${adapter.name}/package.json').version)"`,
    },
    dependencies: Object.fromEntries([ours(adapter.name), ours('@mediagen/core'), ...pin(...extra[framework])]),
    devDependencies: Object.fromEntries([
      ours('@mediagen/emulator'),
      ['typescript', TOOLS.typescript],
      ['@types/node', TOOLS['@types/node']],
      ...(next ? [['@types/react', devVersion(adapterOf('next'), '@types/react')]] : []),
    ]),
  };
}

export interface Consumer {
  dir: string;
  framework: Framework;
  pm: PackageManager;
}

async function pm(consumer: Consumer, args: string[], timeoutMs = 600_000) {
  return run(binOf(consumer.pm), args, { cwd: consumer.dir, env: PM_ENV, timeoutMs });
}

/** A fresh project outside the workspace for `framework`, installed by `pm` from the registry. */
export async function createConsumer(
  parent: string,
  framework: Framework,
  packageManager: PackageManager,
  registry: LocalRegistry,
  versions: Record<string, string>,
): Promise<Consumer> {
  const dir = join(parent, `${packageManager}-${framework}`);
  mkdirSync(dir, { recursive: true });
  cpSync(join(FIXTURES, SOURCES[framework]), dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest(framework, packageManager, versions), null, 2)}\n`);
  configureProject(dir, packageManager, registry);
  const consumer = { dir, framework, pm: packageManager };
  await pm(consumer, installArgs(packageManager));
  return consumer;
}

/** The adapter's version as the app resolves it at run time (through PnP too). */
export async function installedAdapterVersion(consumer: Consumer): Promise<string> {
  const { stdout } = await pm(consumer, runArgs(consumer.pm, 'adapter-version'), 120_000);
  return stdout.trim().split('\n').at(-1) ?? '';
}

/**
 * Builds the app with its build script, starts it with its start script, and completes one
 * generation against the emulator (started with the app's `emulator` script): the emulator's
 * signed webhook received by the app (its read-back route lists it), a forged one refused 401.
 */
export async function buildStartDeliver(consumer: Consumer): Promise<void> {
  await pm(consumer, runArgs(consumer.pm, 'build'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const app = startService(binOf(consumer.pm), runArgs(consumer.pm, 'start'), {
    cwd: consumer.dir,
    env: {
      ...PM_ENV,
      PORT: String(port),
      MEDIAGEN_API_KEY: CHECK_KEY,
      MEDIAGEN_BASE_URL: 'http://127.0.0.1:9',
      MEDIAGEN_WEBHOOK_SECRET: CHECK_SECRET,
    },
  });
  try {
    const webhook = `${origin}/api/webhooks/mediagen`;
    const readBack = consumer.framework === 'next' ? webhook : `${origin}/results`;
    await waitFor(readBack, 90_000, app);
    const outcome = await deliverOne(consumer.dir, webhook, readBack, {
      command: [binOf(consumer.pm), ...runArgs(consumer.pm, 'emulator')],
    });
    if (!outcome.received || outcome.forged !== 401)
      throw new Error(`${consumer.pm} × ${consumer.framework}: ${JSON.stringify(outcome)}\n${app.output().slice(-4000)}`);
  } finally {
    await app.stop();
  }
}

/** `npm update` / `pnpm update` / `yarn up '@mediagen/*'` / `bun update`, as a user takes a patch release. */
export async function upgrade(consumer: Consumer): Promise<void> {
  await pm(consumer, updateArgs(consumer.pm));
}
