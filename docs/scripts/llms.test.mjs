// llms.txt from the pages, and its check on a hand-made site.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, test } from 'vitest';
import { llmsProblems } from './check-built-links.mjs';
import { llmsFullTxt, llmsTxt, pages } from './llms.mjs';

const dir = mkdtempSync(join(tmpdir(), 'docs-llms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (path, text) => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
};

test('the pages come in the sidebar order, each with its title and first paragraph', () => {
  write('.vitepress/config.mts', "{ text: 'B', link: '/guide/b' }, { text: 'Overview', link: '/guide/' }");
  write('guide/index.md', '# Overview\n\nWhat the [SDK](/x) is.\n');
  write('guide/b.md', '---\ntitle: x\n---\n# Bee\n\n```sh\nnpm i\n```\n\nThe second page.\n');
  write('start/a.md', '# Aye\n\n| t |\n\nFirst words.\n');
  const list = pages(dir);
  assert.deepEqual(
    list.map((p) => [p.link, p.title, p.summary]),
    [
      ['/guide/b', 'Bee', 'The second page.'],
      ['/guide/', 'Overview', 'What the SDK is.'],
      ['/start/a', 'Aye', 'First words.'],
    ],
  );
  assert.match(llmsTxt(list), /^- \[Bee\]\(\/guide\/b\): The second page\.$/m);
  assert.match(llmsFullTxt(list), /<!-- \/guide\/b -->\n\n# Bee/);
});

test('missing files and links to no page are reported', () => {
  const site = join(dir, 'site');
  mkdirSync(site, { recursive: true });
  assert.deepEqual(llmsProblems(site), ['/llms.txt is missing (scripts/llms.mjs)', '/llms-full.txt is missing (scripts/llms.mjs)']);
  writeFileSync(join(site, 'llms.txt'), '- [A](/guide/a): x\n- [Gone](/guide/gone)\n- [Full](/llms-full.txt)\n');
  writeFileSync(join(site, 'llms-full.txt'), '');
  mkdirSync(join(site, 'guide'));
  writeFileSync(join(site, 'guide', 'a.html'), '');
  assert.deepEqual(llmsProblems(site), ['/llms.txt -> /guide/gone (no such page)']);
});
