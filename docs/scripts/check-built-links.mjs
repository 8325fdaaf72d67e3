// The built site's own links, page and #anchor: VitePress already fails the build on a link to
// a page that does not exist; this also fails on a link to an anchor that does not (a renamed
// heading, an error code that left the table) and on links that only the theme renders.
// Links off the site are not followed (the build machine is offline).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DOCS } from './workspace.mjs';

const SITE = join(DOCS, 'src', '.vitepress', 'dist');

function htmlFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? htmlFiles(path) : path.endsWith('.html') ? [path] : [];
  });
}

/** The built file a site path names (clean URLs: `/guide/errors` is guide/errors.html). */
function pageFor(site, path) {
  const clean = decodeURIComponent(path)
    .replace(/\.html$/, '')
    .replace(/\.md$/, '');
  for (const candidate of [`${clean}.html`, join(clean, 'index.html'), clean]) {
    const file = join(site, candidate);
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

const idsCache = new Map();
function idsOf(file) {
  if (!idsCache.has(file)) {
    const html = readFileSync(file, 'utf8');
    idsCache.set(file, new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1])));
  }
  return idsCache.get(file);
}

/** Every broken internal link: `page -> href (why)`. */
export function brokenLinks(site = SITE) {
  if (!existsSync(site)) throw new Error(`${site} is missing: build the site first`);
  const problems = [];
  for (const file of htmlFiles(site)) {
    const html = readFileSync(file, 'utf8');
    const from = `/${relative(site, file)}`;
    for (const [, href] of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      if (/^([a-z]+:|\/\/)/i.test(href)) continue; // another site, mailto:
      const [pathPart, hash] = href.replace(/&amp;/g, '&').split('#');
      let target = file;
      if (pathPart) {
        const sitePath = pathPart.startsWith('/') ? pathPart : `/${relative(site, resolve(dirname(file), pathPart))}`;
        target = pageFor(site, sitePath);
        if (!target) {
          if (!existsSync(join(site, decodeURIComponent(sitePath)))) problems.push(`${from} -> ${href} (no such page)`);
          continue;
        }
      }
      if (hash && !idsOf(target).has(decodeURIComponent(hash))) problems.push(`${from} -> ${href} (no such anchor)`);
    }
  }
  return problems;
}

/**
 * llms.txt and llms-full.txt (scripts/llms.mjs) must be there, and each Markdown link of
 * llms.txt must name a built page: an agent follows them as a reader follows the sidebar.
 */
export function llmsProblems(site = SITE) {
  const problems = [];
  for (const name of ['llms.txt', 'llms-full.txt'])
    if (!existsSync(join(site, name))) problems.push(`/${name} is missing (scripts/llms.mjs)`);
  if (problems.length > 0) return problems;
  for (const [, href] of readFileSync(join(site, 'llms.txt'), 'utf8').matchAll(/\]\((\/[^)\s]*)\)/g)) {
    if (!pageFor(site, href) && !existsSync(join(site, href))) problems.push(`/llms.txt -> ${href} (no such page)`);
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = [...brokenLinks(), ...llmsProblems()];
  if (problems.length > 0) {
    console.error(`${problems.length} broken link(s) in the built docs:\n${problems.join('\n')}`);
    process.exit(1);
  }
  console.log(`docs: every internal link and anchor of ${htmlFiles(SITE).length} pages resolves`);
}
