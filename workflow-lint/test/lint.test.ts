import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorkflowLinter, lintFiles, unpinnedActions, type WorkflowLinter } from '../src/lint.mjs';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const WORKFLOWS = join(PACKAGE, '..', '.github', 'workflows');
const BROKEN = join(PACKAGE, 'test', 'fixtures', 'broken.yml');
const CLI = join(PACKAGE, 'src', 'cli.mjs');

let lint: WorkflowLinter;
beforeAll(async () => {
  lint = await createWorkflowLinter();
}, 120_000);

describe('workflow lint', () => {
  it("passes the project's own workflows (ci.yml and release.yml among them)", () => {
    const files = readdirSync(WORKFLOWS).filter((name) => /\.ya?ml$/.test(name));
    expect(files).toEqual(expect.arrayContaining(['ci.yml', 'release.yml']));
    expect(
      lintFiles(
        lint,
        files.map((name) => join(WORKFLOWS, name)),
      ),
    ).toEqual([]);
  });

  it('reports each fault of a broken workflow at its line', () => {
    const found = lintFiles(lint, [BROKEN]).map(({ line, kind }) => `${line} ${kind}`);
    expect(found).toEqual([
      '5 syntax-check', // `branch:` for `branches:`: the workflow would never run
      '8 permissions', // `id-tokens`: provenance would have no token
      '14 expression', // an unclosed ${{ }}
      '15 job-needs', // needs a job that does not exist (reported at the job)
      '18 syntax-check', // timeout-minutes: soon
      '20 pinned-action', // a floating major tag
      '21 pinned-action', // a branch
      '22 action', // no ref at all (actionlint's own check)
      '22 pinned-action',
      '23 expression', // matrix.node with no matrix
    ]);
  });

  it('takes a version tag, a local action and a docker image as pinned, nothing looser', () => {
    const refs = ['actions/checkout@v7.0.1', 'changesets/action@v1.9.0', './.github/actions/setup', 'docker://node:20-bookworm'];
    expect(unpinnedActions(refs.map((ref) => `      - uses: ${ref}`).join('\n'), 'ok.yml')).toEqual([]);
    const loose = [
      'actions/checkout@v7',
      'actions/checkout@main',
      'actions/checkout@v7.0',
      'actions/checkout',
      '"actions/checkout@latest"',
    ];
    expect(unpinnedActions(loose.map((ref) => `  - uses: ${ref}`).join('\n'), 'loose.yml').map(({ line }) => line)).toEqual([
      1, 2, 3, 4, 5,
    ]);
  });

  it('the command fails on the broken workflow, naming file, line and fault, and passes the real ones', () => {
    const broken = spawnSync(process.execPath, [CLI, BROKEN], { encoding: 'utf8' });
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(/broken\.yml:15:\d+: job "release" needs job "bulid" which does not exist/);
    expect(broken.stderr).toContain('10 problem(s) in 1 file(s)');
    const clean = spawnSync(process.execPath, [CLI], { encoding: 'utf8' });
    expect(clean.status, clean.stderr).toBe(0);
    expect(clean.stdout).toContain('.github/workflows/release.yml');
  }, 120_000);
});
