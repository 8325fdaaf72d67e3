import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { run } from '../src/run';
import { ROOT } from '../src/workspace';

// A deliberately breaking change is refused by the release checks before anything is published:
// `pnpm release` runs `pnpm test`, whose `release:check` runs `scripts/api-changesets.mjs` before
// `changeset publish`. Here the script runs for real in a throwaway git repository holding one
// package released at `version`, with its real API report (@mediagen/hono's); then the report
// loses an export (or changes a signature) and a changeset of some size is pending.
//
// What semver asks (RELEASING.md's table): a breaking change is a `major` from 1.0 and a `minor`
// before it (^0.1.0 never takes 0.2.0; changesets' `major` on 0.x would publish 1.0.0, refused
// without MEDIAGEN_RELEASE_1_0=1).

const REPORT = readFileSync(join(ROOT, 'packages', 'hono', 'api', 'index.api.md'), 'utf8');

async function released(
  name: string,
  version: string,
): Promise<{ copy: string; step: (report: string, changeset?: string) => Promise<{ code: number | null; stderr: string }> }> {
  const copy = join(inject('scratch'), 'breaking-change', name);
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(join(copy, 'scripts'), { recursive: true });
  mkdirSync(join(copy, 'packages', 'hono', 'api'), { recursive: true });
  mkdirSync(join(copy, '.changeset'), { recursive: true });
  cpSync(join(ROOT, 'scripts', 'api-changesets.mjs'), join(copy, 'scripts', 'api-changesets.mjs'));
  writeFileSync(join(copy, 'package.json'), '{ "private": true, "type": "module" }\n');
  writeFileSync(join(copy, '.changeset', 'README.md'), 'changesets\n');
  const manifest = join(copy, 'packages', 'hono', 'package.json');
  const report = join(copy, 'packages', 'hono', 'api', 'index.api.md');
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.email=release@check', '-c', 'user.name=release-check', ...args], { cwd: copy, timeoutMs: 30_000 });
  await git('init', '-q');
  writeFileSync(manifest, `${JSON.stringify({ name: '@mediagen/hono', version: '0.0.0' }, null, 2)}\n`);
  writeFileSync(report, REPORT);
  await git('add', '-A');
  await git('commit', '-qm', 'the package and its report');
  // The "Version Packages" commit: the last change of `version` is the release the check compares with.
  writeFileSync(manifest, `${JSON.stringify({ name: '@mediagen/hono', version }, null, 2)}\n`);
  await git('add', '-A');
  await git('commit', '-qm', 'Version Packages');
  return {
    copy,
    async step(next, changeset) {
      writeFileSync(report, next);
      rmSync(join(copy, '.changeset', 'change.md'), { force: true });
      if (changeset) writeFileSync(join(copy, '.changeset', 'change.md'), `---\n"@mediagen/hono": ${changeset}\n---\n\nA change.\n`);
      const result = await run(process.execPath, ['scripts/api-changesets.mjs'], {
        cwd: copy,
        env: { MEDIAGEN_RELEASE_1_0: undefined },
        timeoutMs: 30_000,
        allowFailure: true,
      });
      return { code: result.code, stderr: result.stderr };
    },
  };
}

/** The report without `createRouteHandler`: a removed export. */
const removed = REPORT.replace(/\/\/ @public[^\n]*\nexport function createRouteHandler\([^\n]*\n\n/, '');
/** `createRouteHandler` with a second required parameter: a changed signature. */
const changed = REPORT.replace(
  'export function createRouteHandler(options: RouteHandlerOptions): RouteMiddleware;',
  'export function createRouteHandler(options: RouteHandlerOptions, basePath: string): RouteMiddleware;',
);

describe('a breaking change without a changeset of its size is refused before publishing', () => {
  it('the planted changes are what they claim', () => {
    expect(removed).not.toContain('createRouteHandler(');
    expect(changed).toContain('basePath: string');
  });

  it('0.x: a removed export with a patch changeset (or none) is refused; a minor one passes; a major one is refused as an accidental 1.0', async () => {
    const { step } = await released('zero', '0.1.0');
    expect((await step(REPORT)).code).toBe(0);
    for (const pending of [undefined, 'patch']) {
      const refused = await step(removed, pending);
      expect(refused.code, `pending: ${pending ?? 'none'}`).toBe(1);
      expect(refused.stderr).toContain('@mediagen/hono 0.1.0: its public surface changed since its last release');
      expect(refused.stderr).toContain('(breaking), which needs at least a minor changeset');
      expect(refused.stderr).toContain('removed createRouteHandler');
    }
    const changedSignature = await step(changed, 'patch');
    expect(changedSignature.code).toBe(1);
    expect(changedSignature.stderr).toContain('changed createRouteHandler');
    expect((await step(removed, 'minor')).code).toBe(0);
    const accidental = await step(removed, 'major');
    expect(accidental.code).toBe(1);
    expect(accidental.stderr).toContain('publishes 1.0.0');
  });

  it('from 1.0: the same change with a minor changeset is refused; a major one passes', async () => {
    const { step } = await released('one', '1.2.0');
    const refused = await step(changed, 'minor');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('@mediagen/hono 1.2.0');
    expect(refused.stderr).toContain('(breaking), which needs at least a major changeset');
    expect((await step(changed, 'major')).code).toBe(0);
    // An addition only asks a minor from 1.0.
    const added = REPORT.replace(
      '// (No @packageDocumentation',
      '// @public\nexport const version: string;\n\n// (No @packageDocumentation',
    );
    expect((await step(added, 'patch')).code).toBe(1);
    expect((await step(added, 'minor')).code).toBe(0);
  });
});
