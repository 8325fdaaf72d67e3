// How big code is as an app ships it: esbuild --bundle --minify (Node built-ins external), then
// gzip -9. The one measure `pnpm size` and `pnpm bench` both use, so their figures agree.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** `contents` (an entry module) bundled from `resolveDir`: minified and gzipped byte counts. */
export async function gzippedSize(contents, resolveDir) {
  const result = await build({
    stdin: { contents, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0].contents;
  return { min: bytes.length, gz: gzipSync(bytes, { level: 9 }).length };
}
