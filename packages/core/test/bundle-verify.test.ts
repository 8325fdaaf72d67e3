import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const serverEntry = fileURLToPath(new URL('../src/server.ts', import.meta.url));

async function bundle(names: string, from = entry): Promise<string> {
  const result = await build({
    stdin: { contents: `export { ${names} } from ${JSON.stringify(from)};`, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    minify: true,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe('what importing verifyWebhook costs', () => {
  it('stays under 2 KB min+gzip and pulls in neither the client nor any node: module', async () => {
    const code = await bundle('verifyWebhook, signWebhook');
    expect(gzipSync(code, { level: 9 }).length).toBeLessThan(2_000);
    expect(code).not.toMatch(/\/api\/v1\/generate|Idempotency|cachedList|from\s*["']node:/);
  });

  it('createWebhookHandler brings the receiver but still not the client', async () => {
    const code = await bundle('createWebhookHandler', serverEntry);
    expect(code).not.toMatch(/\/api\/v1\/generate|cachedList/);
  });
});
