import assert from 'node:assert/strict';
import { test } from 'vitest';
import { extractSnippets } from './snippets.mjs';

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
