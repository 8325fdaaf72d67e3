// Every command a page tells a reader to run resolves to this project's packages (or a
// third-party tool allowed by name): see commands.mjs.
import assert from 'node:assert/strict';
import { test } from 'vitest';
import {
  checkCommands,
  codeOf,
  commandSources,
  commandsIn,
  creatorPackage,
  problemOf,
  THIRD_PARTY,
  workspacePackages,
} from './commands.mjs';

/**
 * Findings on pages another branch is fixing, each `file: command start`. An entry whose
 * finding is gone fails the test: delete it then (it must not hide a later regression).
 */
const PENDING = {};

const workspace = workspacePackages();
const problem = (line) => commandsIn(line).map((command) => problemOf(command, workspace));

test('every command of the pages, READMEs and printed text resolves to a package of this project or an allowed tool', () => {
  const results = checkCommands();
  const found = results.filter((result) => result.problem);
  const pending = found.filter(({ file, command }) => PENDING[file] !== undefined && command.startsWith(PENDING[file]));
  const unexpected = found.filter((result) => !pending.includes(result));
  assert.deepEqual(
    unexpected.map(({ file, line, command, problem }) => `${file}:${line}: ${command} (${problem})`),
    [],
    'commands a reader would run that fetch a package this project does not publish',
  );
  for (const file of Object.keys(PENDING)) {
    assert.ok(
      pending.some((result) => result.file === file),
      `${file} no longer has \`${PENDING[file]}\`: delete its PENDING entry`,
    );
  }
  // The scan reaches what it must: a silent scanner would pass everything.
  assert.ok(results.length >= 40, `only ${results.length} commands found`);
  const files = new Set(results.map((result) => result.file));
  for (const file of [
    'docs/src/guide/testing.md',
    'docs/src/start/new-app.md',
    'packages/create-mediagen/README.md',
    'packages/create-mediagen/src/cli.ts',
  ]) {
    assert.ok(files.has(file), `${file} is scanned and has commands`);
  }
});

test('the sources: docs pages (not the generated ones), the root README, published packages’ Markdown and sources, never a CHANGELOG', () => {
  const sources = commandSources();
  assert.ok(sources.includes('docs/src/guide/troubleshooting.md'));
  assert.ok(sources.includes('README.md'));
  assert.ok(sources.includes('packages/emulator/TESTING.md'), 'included in the Testing page at build time');
  assert.ok(sources.includes('packages/create-mediagen/src/cli.ts'), "create-mediagen's printed next steps");
  assert.ok(!sources.some((path) => /CHANGELOG\.md$|\/dist\/|node_modules|docs\/src\/(api|reference|generated)\//.test(path)));
  assert.ok(!sources.some((path) => path.startsWith('packages/conformance/')), 'private packages are not published');
});

test('the old text fails: a bare bin name is looked up on the registry as a package', () => {
  // create-mediagen's next steps and the docs before this check.
  const [message] = problem(
    '  MEDIAGEN_WEBHOOK_URL=http://127.0.0.1:3000/api/webhooks/mediagen npx mediagen-emulator   # another terminal',
  );
  assert.match(message, /`mediagen-emulator` is a bin of @mediagen\/emulator, not a package/);
  assert.match(message, /npx -p @mediagen\/emulator mediagen-emulator/);
  assert.deepEqual(problem('From the command line: `npx mediagen-emulator --port 4010`; set'), [problem('x `npx mediagen-emulator`')[0]]);
  assert.ok(problem('npm exec mediagen-emulator')[0], '`npm exec` is npx');
  assert.ok(problem('pnpm dlx mediagen')[0], 'the CLI bin is `mediagen`; the package is @mediagen/cli');
  assert.ok(problem('bunx mediagen-emulator')[0]);
  assert.ok(problem('yarn dlx mediagen-emulator')[0]);
  assert.ok(problem('npm exec -- mediagen-emulator')[0]);
});

test('what resolves: a workspace package by name, its bin through -p/--package, create-<x>, peers and allowed tools', () => {
  for (const line of [
    'npx -p @mediagen/emulator mediagen-emulator --port 4010',
    'npx --package @mediagen/emulator mediagen-emulator',
    'npx --yes --package=@mediagen/emulator -- mediagen-emulator',
    'npm exec --package @mediagen/cli -- mediagen models',
    'pnpm dlx --package @mediagen/cli mediagen credits',
    'yarn dlx -p @mediagen/emulator mediagen-emulator',
    'bunx -p @mediagen/cli mediagen',
    'npx @mediagen/cli types --out mediagen-models.d.ts',
    'npx @mediagen/cli@latest models',
    'pnpm dlx @mediagen/cli …',
    'npm create mediagen@latest my-app -- --template next',
    'npm init mediagen my-app',
    'pnpm create mediagen my-app',
    'npx -y pnpm@12.21.0 install --frozen-lockfile',
    'npx tsx generate.ts',
    'npm install @mediagen/express @mediagen/core express',
    'npm install -D @types/express',
    'npm i -g @mediagen/cli        # or: pnpm dlx @mediagen/cli …, npx @mediagen/cli …',
    'npm init -y',
    'npm install',
    'pnpm add @mediagen/core     # or npm i / yarn add',
    'npx -c "mediagen-emulator"',
  ]) {
    assert.deepEqual(problem(line).filter(Boolean), [], line);
  }
});

test('what does not resolve', () => {
  const cases = {
    'npx -p @mediagen/emulator mediagen': /`mediagen` is not a bin of @mediagen\/emulator/,
    'npx @mediagen/core': /@mediagen\/core has no bin/,
    'npx mediagen models': /bin of @mediagen\/cli, not a package/,
    'npm create vite@latest app': /`create-vite` is neither/,
    'npm install lodash': /`lodash` is neither/,
    'npm install @mediagen/core @mediagen/corre': /`@mediagen\/corre` is neither/,
    'npx -p some-tool mediagen-emulator': /`some-tool` is neither/,
    'npx tsc --noEmit': /`tsc` is neither/,
  };
  for (const [line, expected] of Object.entries(cases)) {
    const [message] = problem(line);
    assert.match(message ?? '(no problem)', expected, line);
  }
});

test('in Markdown only code is read: fenced blocks and code spans, not prose', () => {
  const page = [
    'Without `-p`, npx would look up a package named `mediagen-emulator`.',
    '```sh',
    'npx -p @mediagen/emulator mediagen-emulator',
    '```',
    'Run `npx tsx a.ts` then `npm run x`.',
  ];
  assert.deepEqual(codeOf(page.join('\n')), [
    { line: 1, text: '-p' },
    { line: 1, text: 'mediagen-emulator' },
    { line: 3, text: 'npx -p @mediagen/emulator mediagen-emulator' },
    { line: 5, text: 'npx tsx a.ts' },
    { line: 5, text: 'npm run x' },
  ]);
  const files = { 'page.md': page.join('\n') };
  const results = checkCommands(['page.md'], { read: (file) => files[file] });
  assert.deepEqual(
    results.map(({ line, packages, problem }) => ({ line, packages, problem })),
    [
      { line: 3, packages: ['@mediagen/emulator'], problem: undefined },
      { line: 5, packages: ['tsx'], problem: undefined },
    ],
  );
});

test('npm create <x> runs create-<x>, with npm’s rules for scopes', () => {
  assert.equal(creatorPackage('mediagen'), 'create-mediagen');
  assert.equal(creatorPackage('mediagen@latest'), 'create-mediagen');
  assert.equal(creatorPackage('@mediagen'), '@mediagen/create');
  assert.equal(creatorPackage('@mediagen/app@1.2.0'), '@mediagen/create-app');
});

test('each allowed third-party tool says why', () => {
  for (const [name, reason] of Object.entries(THIRD_PARTY)) {
    assert.ok(!workspace.has(name), `${name} is a workspace package, not a third-party one`);
    assert.ok(reason.length > 20, `${name} has a reason`);
  }
});
