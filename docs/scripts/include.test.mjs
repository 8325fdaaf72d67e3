import assert from 'node:assert/strict';
import { test } from 'vitest';
import { asIncluded } from './include.mjs';

test('headings go one level down, relative links become text, fenced code and other links stay', () => {
  const source = [
    '# Testing with the emulator',
    'See [the README](./README.md), [a file](src/controls.ts), [errors](/reference/errors) and [npm](https://npmjs.com).',
    '```sh',
    '# start it',
    'npx -p @mediagen/emulator mediagen-emulator [--port 4010](x)',
    '```',
    '## Faults',
  ].join('\n');
  assert.equal(
    asIncluded(source),
    [
      '## Testing with the emulator',
      'See the README, a file, [errors](/reference/errors) and [npm](https://npmjs.com).',
      '```sh',
      '# start it',
      'npx -p @mediagen/emulator mediagen-emulator [--port 4010](x)',
      '```',
      '### Faults',
    ].join('\n'),
  );
});
