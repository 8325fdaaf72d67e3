/**
 * A written app is a standalone project: its own `.gitignore` is all that keeps a `git add .`
 * from committing secrets and installs. The samples' `.gitignore` leans on the monorepo's root
 * one (node_modules, dist, …) and none of them ignores an env file, where a user puts
 * `MEDIAGEN_API_KEY` (`svc_live_…`) and `MEDIAGEN_WEBHOOK_SECRET` (`whsec_…`); Next.js reads
 * `.env.local` by itself. Whatever the template, these are ignored in the written app; an
 * example file meant to be committed is not.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(PACKAGE, 'dist', 'cli.js');
const TEMPLATES = JSON.parse(readFileSync(join(PACKAGE, 'dist', 'templates', 'index.json'), 'utf8')).templates as string[];
const scratch = mkdtempSync(join(tmpdir(), 'create-mediagen-gitignore-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const git = (cwd: string, args: string[]) =>
  spawnSync('git', ['-c', 'core.excludesFile=/dev/null', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });

const SECRET_FILES = ['.env', '.env.local', '.env.production.local', '.env.development', 'sub/.env'];
const INSTALLS = ['node_modules/pkg/index.js', 'dist/server.js'];

describe.each(TEMPLATES)('the %s app', (template) => {
  it('ignores env files, node_modules and build output; keeps .env.example and its own sources', () => {
    const dir = join(scratch, template);
    const result = spawnSync(process.execPath, [CLI, dir, '--template', template], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(git(dir, ['init', '-q', '.']).status).toBe(0);
    for (const file of [...SECRET_FILES, ...INSTALLS, '.env.example']) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), 'MEDIAGEN_API_KEY=svc_live_do_not_commit\n');
    }
    const check = (file: string) => git(dir, ['check-ignore', '-q', '--no-index', file]).status === 0;
    for (const file of [...SECRET_FILES, ...INSTALLS]) expect(check(file), `${file} ignored`).toBe(true);
    expect(check('.env.example'), '.env.example ignored').toBe(false);
    expect(check('package.json'), 'package.json ignored').toBe(false);
    expect(check('README.md'), 'README.md ignored').toBe(false);
  });
});
