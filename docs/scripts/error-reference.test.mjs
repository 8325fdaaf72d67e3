// The error-code page: from the interim lists today, from core's `ERROR_CODES` once it lands
// (the shape below is the one the generator reads), checked against the real client either way.
import assert from 'node:assert/strict';
import * as wire from '@mediagen/core/wire';
import { test } from 'vitest';
import { codeNotes, codeRows, renderPage } from './error-reference.mjs';

test('every service code with the class and retryable the client shows, and the receiver refusals from core', async () => {
  const rows = await codeRows(undefined);
  const byCode = new Map(rows.map((row) => [row.code, row]));
  for (const code of wire.PARAMS_ERROR_CODES) assert.ok(byCode.has(code), `${code} (core's PARAMS_ERROR_CODES) is on the page`);
  assert.deepEqual(
    { ...byCode.get('RATE_LIMIT'), when: undefined },
    {
      code: 'RATE_LIMIT',
      status: 429,
      kind: 'service',
      retryable: true,
      sdkClass: 'RateLimitError',
      reportedAs: 'RATE_LIMIT',
      next: byCode.get('RATE_LIMIT').next,
      when: undefined,
    },
  );
  assert.equal(byCode.get('UNAUTHORIZED').reportedAs, 'AUTH_MISSING', 'an earlier form is thrown under its current code');
  assert.equal(byCode.get('WEBHOOK_HANDLER_FAILED').status, 500);
  for (const row of rows) assert.ok(row.next, `${row.code} says what to do`);
  const page = renderPage(rows);
  assert.match(page, /\| \[`INSUFFICIENT_CREDITS`\]\(#insufficient-credits\) \| 402 \| no \| `InsufficientCreditsError` \|/);
  assert.doesNotMatch(page, /<API_KEY>/, 'angle brackets in prose are escaped for VitePress');
});

test('after the merge: status, retryable and next come from the table core exports, the words from the notes, and a retryable the client contradicts fails the build', async () => {
  // The shape of `ERROR_CODES` in @mediagen/core/wire: { [code]: { status, retryable, next } }.
  const table = {
    RATE_LIMIT: { status: 429, retryable: true, next: 'Wait Retry-After seconds.' },
    TIMEOUT: { status: 504, retryable: true, next: 'Retry later.' },
    SOMETHING_NEW: { status: 400, retryable: false, next: 'Do this.' },
  };
  const rows = await codeRows(table);
  assert.deepEqual(
    rows.map(({ code, kind, status, retryable, next, sdkClass }) => ({ code, kind, status, retryable, next, sdkClass })),
    [
      { code: 'RATE_LIMIT', kind: 'service', status: 429, retryable: true, next: 'Wait Retry-After seconds.', sdkClass: 'RateLimitError' },
      { code: 'TIMEOUT', kind: 'sdk', status: 504, retryable: true, next: 'Retry later.', sdkClass: 'TimeoutError' },
      { code: 'SOMETHING_NEW', kind: 'other', status: 400, retryable: false, next: 'Do this.', sdkClass: undefined },
    ],
  );
  assert.match(rows[1].when, /timeoutMs/);
  assert.match(renderPage(rows), /## Other codes[\s\S]*### SOMETHING_NEW/);
  await assert.rejects(
    codeRows({ RATE_LIMIT: { ...table.RATE_LIMIT, retryable: false } }),
    /RATE_LIMIT: the table says retryable false, the client says true/,
  );
});

test.skipIf(!wire.ERROR_CODES)(
  'every code of core’s table has the docs’ words (a code added to ERROR_CODES needs a note in code-notes.mjs)',
  async () => {
    const notes = await codeNotes();
    assert.deepEqual(
      Object.keys(wire.ERROR_CODES).filter((code) => !notes.has(code)),
      [],
    );
  },
);
