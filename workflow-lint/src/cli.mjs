#!/usr/bin/env node
// `node src/cli.mjs [file…]`: lints the given workflow files, by default every
// .github/workflows/*.yml|yaml of the repository. Prints each problem as file:line:col and exits 1
// when there is one (or when there is no workflow to lint: a moved folder must not pass silently).
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorkflowLinter, formatProblem, lintFiles } from './lint.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOWS = join(ROOT, '.github', 'workflows');

const args = process.argv.slice(2);
const files =
  args.length > 0
    ? args
    : readdirSync(WORKFLOWS)
        .filter((name) => /\.ya?ml$/.test(name))
        .map((name) => join(WORKFLOWS, name));
if (files.length === 0) {
  console.error(`workflow-lint: no workflow file in ${relative(ROOT, WORKFLOWS)}`);
  process.exit(1);
}
const problems = lintFiles(await createWorkflowLinter(), files);
for (const problem of problems) console.error(formatProblem({ ...problem, file: relative(process.cwd(), problem.file) }));
if (problems.length > 0) {
  console.error(`workflow-lint: ${problems.length} problem(s) in ${files.length} file(s)`);
  process.exit(1);
}
console.log(`workflow-lint: ${files.length} workflow file(s) clean (${files.map((file) => relative(ROOT, file)).join(', ')})`);
