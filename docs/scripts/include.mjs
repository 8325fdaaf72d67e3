/**
 * A package's Markdown file (the emulator's TESTING.md) as part of a docs page: its headings one
 * level down, and its relative links (`./README.md`, `src/…`, which point at files the site does
 * not have, and a dead link fails the build) kept as their text. Fenced code is left as it is.
 */
export function asIncluded(markdown) {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      if (fenced || /^\s*(```|~~~)/.test(line)) return line;
      return line.replace(/^(#{1,5}) /, '#$1 ').replace(/(?<!!)\[([^\]]+)\]\((?![a-z][a-z0-9+.-]*:|\/|#)[^)]*\)/gi, '$1');
    })
    .join('\n');
}
