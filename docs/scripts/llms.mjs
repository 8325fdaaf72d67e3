// llms.txt and llms-full.txt (https://llmstxt.org), written into the built site from the pages'
// Markdown after VitePress builds it: an agent reads the index (each page, its link and what it
// covers, in the sidebar's order) or the whole guide in one file. The links are checked with the
// site's own (check-built-links.mjs), so a page that moves breaks the build, not the agent.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCS } from './workspace.mjs';

const SRC = join(DOCS, 'src');
const SITE = join(SRC, '.vitepress', 'dist');

/** The guide pages in the sidebar's order (its `link: '/start/...'` and `'/guide/...'` entries), then any page it does not list. */
export function pages(src = SRC) {
  const config = readFileSync(join(src, '.vitepress', 'config.mts'), 'utf8');
  const ordered = [...config.matchAll(/link: '(\/(?:start|guide)\/[^']*)'/g)].map((m) => m[1]);
  const all = ['start', 'guide'].flatMap((dir) =>
    readdirSync(join(src, dir))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `/${dir}/${f === 'index.md' ? '' : f.replace(/\.md$/, '')}`),
  );
  const seen = new Set();
  return [...ordered, ...all.sort()]
    .filter((link) => all.includes(link) && !seen.has(link) && seen.add(link))
    .map((link) => {
      const file = join(src, link.endsWith('/') ? `${link}index.md` : `${link}.md`);
      const markdown = readFileSync(file, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
      const title = /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? link;
      return { link, title, summary: firstParagraph(markdown), markdown };
    });
}

/** The first prose paragraph after the title, on one line (links kept as their text). */
function firstParagraph(markdown) {
  // Code fences out first: a blank line inside one would otherwise split it into "paragraphs".
  const body = markdown.replace(/^#\s+.+$/m, '').replace(/^```[\s\S]*?^```/gm, '');
  const paragraph = body.split(/\n\s*\n/).find((p) => /^[A-Za-z`*[]/.test(p.trim()) && !p.trim().startsWith('|')) ?? '';
  const text = paragraph
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

export function llmsTxt(list) {
  const lines = [
    '# MediaGen SDK',
    '',
    '> TypeScript SDK for the asynchronous media-generation service (images, video, audio, text): the client, webhooks, the generation ledger, framework adapters, a local emulator, and an MCP server for agents.',
    '',
    'Every page of the guide, in reading order. The whole guide in one file: [llms-full.txt](/llms-full.txt).',
    '',
    '## Guide',
    '',
    ...list.map((p) => `- [${p.title}](${p.link})${p.summary ? `: ${p.summary}` : ''}`),
    '',
    '## Reference',
    '',
    '- [Error codes](/reference/errors): every error code the service and the SDK use, with what to do.',
    '- [API reference](/api/): the published packages, generated from their types.',
    '',
  ];
  return lines.join('\n');
}

export function llmsFullTxt(list) {
  return list.map((p) => `<!-- ${p.link} -->\n\n${p.markdown.trim()}\n`).join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!existsSync(SITE)) throw new Error(`${SITE} is missing: build the site first`);
  const list = pages();
  writeFileSync(join(SITE, 'llms.txt'), llmsTxt(list));
  writeFileSync(join(SITE, 'llms-full.txt'), llmsFullTxt(list));
  console.log(`docs: llms.txt and llms-full.txt of ${list.length} pages`);
}
