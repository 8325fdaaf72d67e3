// The error-code page: from the interim lists today, from core's `ERROR_CODES` once it lands
// (the shape below is the one the generator reads), checked against the real client either way.
import assert from 'node:assert/strict';
import { PARAMS_ERROR_CODES } from '@mediagen/core/wire';
import { test } from 'vitest';
import { codeRows, renderPage } from './error-reference.mjs';

test('today: every service code with the class and retryable the client shows, and the receiver refusals from core', async () => {
  const rows = await codeRows(undefined);
  const byCode = new Map(rows.map((row) => [row.code, row]));
  for (const code of PARAMS_ERROR_CODES) assert.ok(byCode.has(code), `${code} (core's PARAMS_ERROR_CODES) is on the page`);
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
  assert.equal(byCode.get('NOT_YOURS').reportedAs, 'NOT_FOUND');
  assert.equal(byCode.get('WEBHOOK_HANDLER_FAILED').status, 500);
  for (const row of rows) assert.ok(row.next, `${row.code} says what to do`);
  const page = renderPage(rows);
  assert.match(page, /\| \[`INSUFFICIENT_CREDITS`\]\(#insufficient-credits\) \| 402 \| no \| `InsufficientCreditsError` \|/);
  assert.doesNotMatch(page, /<API_KEY>/, 'angle brackets in prose are escaped for VitePress');
});

test('after the merge: the table core exports is read as it is, and a retryable the client contradicts fails the build', async () => {
  const table = {
    RATE_LIMIT: { status: 429, retryable: true, next: 'Wait Retry-After seconds.', when: 'Too many submits.' },
    TIMEOUT: { status: null, retryable: true, next: 'Call again.', when: 'Too slow.' },
  };
  const rows = await codeRows(table);
  assert.deepEqual(
    rows.map(({ code, kind, retryable, sdkClass }) => ({ code, kind, retryable, sdkClass })),
    [
      { code: 'RATE_LIMIT', kind: 'service', retryable: true, sdkClass: 'RateLimitError' },
      { code: 'TIMEOUT', kind: 'sdk', retryable: true, sdkClass: undefined },
    ],
  );
  await assert.rejects(
    codeRows({ RATE_LIMIT: { ...table.RATE_LIMIT, retryable: false } }),
    /RATE_LIMIT: the table says retryable false, the client says true/,
  );
});
