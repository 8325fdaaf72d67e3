import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'vitest';
import { checkSnippets, extractSnippets, sources } from './snippets.mjs';
import { DOCS } from './workspace.mjs';

test('ts and tsx blocks are taken with their line, nocheck and other languages are not', () => {
  const page = [
    '# T',
    '```ts',
    'const a = 1;',
    '```',
    '```sh',
    'npm i',
    '```',
    '```ts nocheck',
    'broken(',
    '```',
    '```tsx',
    '<b />',
    '```',
  ].join('\n');
  assert.deepEqual(extractSnippets(page, 'p.md'), [
    { page: 'p.md', line: 2, ext: 'ts', code: 'const a = 1;' },
    { page: 'p.md', line: 11, ext: 'tsx', code: '<b />' },
  ]);
});

test("the guides and every published package's README are checked; generated pages and private packages are not", () => {
  const pages = sources().map(({ page }) => page);
  for (const adapter of ['express', 'fastify', 'hono', 'nestjs', 'next'])
    assert.ok(pages.includes(`packages/${adapter}/README.md`), adapter);
  assert.ok(pages.includes('docs/src/start/express.md'));
  assert.ok(!pages.some((page) => page.startsWith('docs/src/api/') || page.startsWith('docs/src/reference/')));
  assert.ok(!pages.includes('packages/conformance/README.md'));
});

test('a README snippet importing a name the package does not export fails, naming the README and the line', () => {
  const markdown = [
    '# @mediagen/example',
    '```ts',
    "import { createGenerationLedger, ledgerSource } from '@mediagen/core/ledger';",
    "import { createRouteHandler } from '@mediagen/express';",
    'void [createGenerationLedger, ledgerSource, createRouteHandler];',
    '```',
    '',
    '```ts',
    "import { createGenerationLedger, ledgerSourceRenamed } from '@mediagen/core/ledger';",
    'void [createGenerationLedger, ledgerSourceRenamed];',
    '```',
  ].join('\n');
  const out = join(DOCS, `.snippets-test-${process.pid}`);
  try {
    const { count, errors } = checkSnippets({ documents: [{ page: 'packages/example/README.md', markdown }], out });
    assert.equal(count, 2);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /^packages\/example\/README\.md:9: error TS2\d+: .*ledgerSourceRenamed/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
