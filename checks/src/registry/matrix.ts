import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildStartDeliver,
  type Consumer,
  createConsumer,
  FRAMEWORKS,
  type Framework,
  installedAdapterVersion,
  upgrade,
} from './consumers';
import { createApp, installAndRun } from './create-forms';
import { PACKAGE_MANAGERS, type PackageManager } from './package-managers';
import { addChangeset, type Release, throwawayRepo, versionAndPublish } from './release';
import { installTools, toolVersions } from './tools';
import { type LocalRegistry, startRegistry } from './verdaccio';

export interface CellPlan {
  pm: PackageManager;
  framework: Framework;
  /** Also take the patch release with the tool's update command, and pass again. */
  upgrade: boolean;
}

/** One `create` form per tool: the three templates written, one installed and run (none: written only). */
export interface CreatePlan {
  pm: PackageManager;
  run: string | null;
}

export const TEMPLATES = ['next', 'express', 'nest'];

export interface MatrixPlan {
  name: 'full' | 'ci';
  cells: CellPlan[];
  creates: CreatePlan[];
}

/**
 * Every tool's create form: the templates it installs and runs spread so each template runs
 * under some tool. Yarn's create runs once (the linker is the written app's install, PnP here).
 */
const CREATES: CreatePlan[] = [
  { pm: 'npm', run: 'next' },
  { pm: 'pnpm', run: 'express' },
  { pm: 'yarn-pnp', run: 'nest' },
  { pm: 'bun', run: 'express' },
];

/** Every package manager with every framework, each upgraded: `pnpm release:matrix`. */
export const FULL: MatrixPlan = {
  name: 'full',
  cells: PACKAGE_MANAGERS.flatMap((pm) => FRAMEWORKS.map((framework) => ({ pm, framework, upgrade: true }))),
  creates: CREATES,
};

/**
 * What `pnpm test` runs in CI's time: a diagonal (every tool once, every framework once), every
 * tool's create form writing the three templates, two of them installed and run (the Express
 * template by npm; the Nest one by Yarn PnP, the strictest linker; the Next template's `next
 * build` is left to the full matrix: the bun × Next cell already builds the adapter from the
 * registry, and the samples check builds that template from the tarballs), and the upgrade on
 * three tools (the cells whose build is `tsc`, not `next build`).
 */
export const CI: MatrixPlan = {
  name: 'ci',
  cells: [
    { pm: 'npm', framework: 'express', upgrade: true },
    { pm: 'pnpm', framework: 'fastify', upgrade: true },
    { pm: 'yarn-pnp', framework: 'hono', upgrade: true },
    { pm: 'yarn-nm', framework: 'nestjs', upgrade: false },
    { pm: 'bun', framework: 'next', upgrade: false },
  ],
  creates: [
    { pm: 'npm', run: 'express' },
    { pm: 'pnpm', run: null },
    { pm: 'yarn-pnp', run: 'nest' },
    { pm: 'bun', run: null },
  ],
};

/** The adapters the patch release bumps (a fix in each): what the consumers upgrade to. */
const PATCHED = FRAMEWORKS.map((framework) => `@mediagen/${framework}`);

export type Outcome = { ok: true; detail?: string } | { ok: false; error: string } | { skipped: string };

export interface CellResult extends CellPlan {
  install: Outcome;
  upgraded?: Outcome;
}

export interface CreateResult extends CreatePlan {
  written: Outcome;
  /** Absent when the plan only writes the templates. */
  ran?: Outcome;
}

export interface MatrixResults {
  matrix: MatrixPlan['name'];
  tools: Record<string, string>;
  releases: Release[];
  cells: CellResult[];
  creates: CreateResult[];
  seconds: number;
}

async function attempt(step: () => Promise<string | undefined | void>): Promise<Outcome> {
  try {
    const detail = await step();
    return detail ? { ok: true, detail } : { ok: true };
  } catch (error) {
    return { ok: false, error: (error as Error).message.slice(0, 4000) };
  }
}

/** Runs `tasks` two at a time (two cores; installs mostly wait on the registry). */
async function inPairs<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

/**
 * The release through a local registry and its users: Verdaccio started, the repository's
 * pending changesets released into it, each cell's app installed by name, built, run; each tool's
 * create form; then a patch release and each upgrading cell updated and run again.
 */
export async function runMatrix(plan: MatrixPlan, scratch: string, print: (line: string) => void = () => {}): Promise<MatrixResults> {
  const started = Date.now();
  // Each line with the seconds since the start: where the run's time goes.
  const log = (line: string) => print(`${Math.round((Date.now() - started) / 1000)} s: ${line}`);
  await installTools();
  const tools = await toolVersions();
  const registry: LocalRegistry = await startRegistry(join(scratch, 'registry'));
  try {
    log(`registry at ${registry.url}`);
    const repo = await throwawayRepo(join(scratch, 'repo'));
    const first = await versionAndPublish(repo, registry);
    log(`released ${first.tags.length} packages`);
    const consumers = join(scratch, 'consumers');
    mkdirSync(consumers, { recursive: true });
    const installed = new Map<CellPlan, Consumer>();
    const cells: CellResult[] = await inPairs(
      plan.cells.map((cell) => async () => {
        const install = await attempt(async () => {
          const consumer = await createConsumer(consumers, cell.framework, cell.pm, registry, first.versions);
          installed.set(cell, consumer);
          await buildStartDeliver(consumer);
          return installedAdapterVersion(consumer);
        });
        log(`${cell.pm} × ${cell.framework}: ${'ok' in install && install.ok ? 'pass' : 'FAIL'}`);
        return { ...cell, install };
      }),
    );
    const creates: CreateResult[] = await inPairs(
      plan.creates.map((create) => async () => {
        const parent = join(scratch, 'create', create.pm);
        mkdirSync(parent, { recursive: true });
        let runDir = '';
        const written = await attempt(async () => {
          for (const template of TEMPLATES) {
            const dir = await createApp(join(parent, template), create.pm, registry, template, first.versions);
            if (template === create.run) runDir = dir;
          }
        });
        const ran: Outcome | undefined =
          create.run === null
            ? undefined
            : 'ok' in written && written.ok
              ? await attempt(() => installAndRun(runDir, create.pm, registry))
              : { skipped: 'not written' };
        const passed = (o: Outcome | undefined) => !o || ('ok' in o && o.ok);
        log(`${create.pm} create: ${passed(written) && passed(ran) ? 'pass' : 'FAIL'}`);
        return { ...create, written, ran };
      }),
    );

    addChangeset(
      repo,
      'registry-check-patch.md',
      Object.fromEntries(PATCHED.map((name) => [name, 'patch'])),
      'A fix, released by the registry check.',
    );
    const second = await versionAndPublish(repo, registry);
    log(`patch release: ${second.tags.join(', ')}`);
    await inPairs(
      cells.map((cell) => async () => {
        const consumer = installed.get(plan.cells.find((c) => c.pm === cell.pm && c.framework === cell.framework)!);
        if (!cell.upgrade) return;
        if (!consumer || !('ok' in cell.install && cell.install.ok)) {
          cell.upgraded = { skipped: 'the first install failed' };
          return;
        }
        cell.upgraded = await attempt(async () => {
          await upgrade(consumer);
          const adapter = `@mediagen/${cell.framework}`;
          const version = await installedAdapterVersion(consumer);
          if (version !== second.versions[adapter])
            throw new Error(`${adapter} is ${version} after the update, not ${second.versions[adapter]}`);
          await buildStartDeliver(consumer);
          return `${first.versions[adapter]} → ${version}`;
        });
        log(`${cell.pm} × ${cell.framework} upgrade: ${'ok' in cell.upgraded && cell.upgraded.ok ? 'pass' : 'FAIL'}`);
      }),
    );
    return { matrix: plan.name, tools, releases: [first, second], cells, creates, seconds: Math.round((Date.now() - started) / 1000) };
  } finally {
    await registry.stop();
  }
}

/** Every failed outcome, as `where: error` lines (empty when everything passed). */
export function failures(results: MatrixResults): string[] {
  const out: string[] = [];
  const check = (where: string, outcome: Outcome | undefined) => {
    if (outcome && 'ok' in outcome && !outcome.ok) out.push(`${where}: ${outcome.error}`);
  };
  for (const cell of results.cells) {
    check(`${cell.pm} × ${cell.framework}`, cell.install);
    check(`${cell.pm} × ${cell.framework} (upgrade)`, cell.upgraded);
  }
  for (const create of results.creates) {
    check(`${create.pm} create`, create.written);
    check(`${create.pm} create, ${create.run} run`, create.ran);
  }
  return out;
}
