// The link check on a hand-made site: each rule can fail, and a sound site passes.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, test } from 'vitest';
import { joinSplitCodeSpans } from './api-reference.mjs';
import { brokenLinks } from './check-built-links.mjs';

const site = mkdtempSync(join(tmpdir(), 'docs-links-'));
afterAll(() => rmSync(site, { recursive: true, force: true }));
const page = (path, body) => {
  mkdirSync(join(site, path, '..'), { recursive: true });
  writeFileSync(join(site, path), `<html><body>${body}</body></html>`);
};

test('links resolve as a browser resolves them: absolute, relative to the page, same-page anchors', () => {
  page(
    'index.html',
    '<a href="/guide/errors#retries">x</a> <a href="https://example.com/nowhere">off site</a> <a href="#top">top</a><h1 id="top">t</h1>',
  );
  page('guide/errors.html', '<h2 id="retries">Retries</h2><a href="./webhooks">w</a><a href="../api/">api</a>');
  page('guide/webhooks.html', '<a href="/assets/app.js">asset</a>');
  page('api/index.html', '<a href="errors#retries">relative</a>');
  page('assets/app.js', '');
  assert.deepEqual(brokenLinks(site), ['/api/index.html -> errors#retries (no such page)']);
});

test('a missing page and a missing anchor are both reported', () => {
  page('api/index.html', '<a href="/guide/errors#gone">anchor</a> <a href="/guide/nowhere">page</a> <a href="#">bare</a>');
  assert.deepEqual(brokenLinks(site).sort(), [
    '/api/index.html -> /guide/errors#gone (no such anchor)',
    '/api/index.html -> /guide/nowhere (no such page)',
  ]);
});

test('a code span wrapped across lines is joined, fenced code is left alone', () => {
  const text = 'Reads `/a/<b>/\n<c>/<d>` then\nmore.\n\n```ts\nconst a = `x\ny`;\n```\n';
  assert.equal(joinSplitCodeSpans(text), 'Reads `/a/<b>/ <c>/<d>` then\nmore.\n\n```ts\nconst a = `x\ny`;\n```\n');
});
