import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';

// The API reference's sidebar is written by TypeDoc (scripts/api-reference.mjs) at build time.
const apiSidebarFile = fileURLToPath(new URL('../api/typedoc-sidebar.json', import.meta.url));
const apiSidebar = existsSync(apiSidebarFile) ? JSON.parse(readFileSync(apiSidebarFile, 'utf8')) : [];

export default defineConfig({
  title: 'MediaGen SDK',
  description: 'TypeScript SDK for the asynchronous media-generation service: client, webhooks, adapters, emulator.',
  cleanUrls: true,
  // A dead internal link fails the build (VitePress's default, kept on purpose); the built site's
  // links and #anchors are checked again by scripts/check-built-links.mjs.
  ignoreDeadLinks: false,
  srcExclude: ['generated/**'],
  lastUpdated: false,
  // The local search index covers every API page; its chunk is large by design.
  vite: { build: { chunkSizeWarningLimit: 4000 } },
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Guide', link: '/guide/' },
      { text: 'Error codes', link: '/reference/errors' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar }],
      '/': [
        {
          text: 'Start',
          items: [
            { text: 'Overview', link: '/guide/' },
            { text: 'A new app: npm create mediagen', link: '/start/new-app' },
            { text: 'Express', link: '/start/express' },
            { text: 'NestJS', link: '/start/nestjs' },
            { text: 'Next.js', link: '/start/nextjs' },
            { text: 'Hono', link: '/start/hono' },
            { text: 'Fastify', link: '/start/fastify' },
            { text: 'Other runtimes and servers', link: '/start/other-frameworks' },
          ],
        },
        {
          text: 'Guides',
          items: [
            { text: 'Webhooks', link: '/guide/webhooks' },
            { text: 'Errors and retries', link: '/guide/errors' },
            { text: 'Idempotency', link: '/guide/idempotency' },
            { text: 'The ledger', link: '/guide/ledger' },
            { text: 'Live results', link: '/guide/live-results' },
            { text: 'Uploads (your own media as inputs)', link: '/guide/uploads' },
            { text: 'Storing inputs (S3, R2, MinIO)', link: '/guide/storage' },
            { text: 'Testing', link: '/guide/testing' },
            { text: 'Vercel AI SDK', link: '/guide/ai-sdk' },
            { text: 'Agents (MCP)', link: '/guide/mcp' },
            { text: 'Going to production', link: '/guide/production' },
            { text: 'Troubleshooting', link: '/guide/troubleshooting' },
            { text: 'Coming from fal', link: '/guide/from-fal' },
            { text: 'Coming from Replicate', link: '/guide/from-replicate' },
            { text: 'Migration notes', link: '/guide/migration' },
          ],
        },
        {
          text: 'Reference',
          items: [
            { text: 'Error codes', link: '/reference/errors' },
            { text: 'API reference', link: '/api/' },
          ],
        },
      ],
    },
  },
});
