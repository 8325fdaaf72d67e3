import { HONO_WEBHOOK_ROUTE } from './hono-app.js';
import { CHECKS } from './scenario.js';

/**
 * The matrix's rows: each runtime, the registry package its binary comes from (pinned in
 * package.json; a binary inside a registry package, nothing downloaded from elsewhere), and how
 * the scenario is started on it. The README table and the test are made from this list.
 *
 * Every cell serves a webhook receiver the emulator delivers to: core's, on the runtime's own
 * server. `kind: 'next'` cells build a fixture app with `next build` and serve it with `next
 * start`: the scenario runs inside an edge route, and `route` names the framework's webhook route
 * (edge too) that the emulator delivers to instead. A `hono` cell serves the Hono adapter's app
 * instead of the scenario, with its webhook route as `route`, and is judged from outside
 * (hono-check.js). A `pending` cell is listed, and shown in the README with its
 * reason, until it can run.
 * @type {Array<{ id: string, runtime: string, pending?: string } & Record<string, any>>}
 */
export const CELLS = [
  // The Node rows are the versions the published packages' `engines` name (`>=22.12`): its floor,
  // the newest 22 and 24. Node 20 (end of life April 2026) is not supported and not a row.
  { id: 'node-22-floor', runtime: 'Node 22.12 (the `engines` floor)', kind: 'process', pkg: 'node-22-floor', bin: 'bin/node', args: [] },
  { id: 'node-22', runtime: 'Node 22', kind: 'process', pkg: 'node-22', bin: 'bin/node', args: [] },
  { id: 'node-24', runtime: 'Node 24', kind: 'process', pkg: 'node-24', bin: 'bin/node', args: [] },
  { id: 'bun', runtime: 'Bun', kind: 'process', pkg: '@oven/bun-linux-x64', bin: 'bin/bun', args: ['run'] },
  // Network only, as a Deno app is usually run: no env, read or write permission.
  { id: 'deno', runtime: 'Deno', kind: 'process', pkg: '@deno/linux-x64-glibc', bin: 'deno', args: ['run', '--allow-net'] },
  // workerd's defaults at the compatibility date run-workerd.js sets: Node's APIs are on (the
  // default since 2026-08-04), so core finds `process.getBuiltinModule` and takes Node's crypto.
  {
    id: 'workerd',
    runtime: 'workerd (Cloudflare Workers)',
    kind: 'workerd',
    pkg: '@cloudflare/workerd-linux-64',
    bin: 'bin/workerd',
    flags: [],
  },
  // A Worker without them, as every Worker dated before that runs: no `process`, and a `node:`
  // import fails to load. Core must take Web Crypto here.
  {
    id: 'workerd-web-only',
    runtime: 'workerd, Node APIs off (`no_nodejs_compat`)',
    kind: 'workerd',
    pkg: '@cloudflare/workerd-linux-64',
    bin: 'bin/workerd',
    flags: ['no_nodejs_compat', 'no_nodejs_compat_v2'],
  },
  {
    id: 'next-edge',
    runtime: "Next.js, `runtime = 'edge'` routes",
    kind: 'next',
    pkg: 'next',
    bin: 'dist/bin/next',
    fixture: 'fixtures/next-edge',
    route: '/api/webhooks/mediagen',
  },
  // The Hono adapter's app (hono-app.js: core's handler mounted with `@mediagen/hono`), served by
  // each runtime's own server and judged from outside: a submit, a read, its webhook route.
  {
    id: 'hono-node-22-floor',
    runtime: 'Hono adapter on Node 22.12 (`@hono/node-server`)',
    kind: 'process',
    hono: true,
    route: HONO_WEBHOOK_ROUTE,
    pkg: 'node-22-floor',
    bin: 'bin/node',
    args: [],
  },
  {
    id: 'hono-node-22',
    runtime: 'Hono adapter on Node 22 (`@hono/node-server`)',
    kind: 'process',
    hono: true,
    route: HONO_WEBHOOK_ROUTE,
    pkg: 'node-22',
    bin: 'bin/node',
    args: [],
  },
  {
    id: 'hono-node-24',
    runtime: 'Hono adapter on Node 24 (`@hono/node-server`)',
    kind: 'process',
    hono: true,
    route: HONO_WEBHOOK_ROUTE,
    pkg: 'node-24',
    bin: 'bin/node',
    args: [],
  },
  {
    id: 'hono-bun',
    runtime: 'Hono adapter on Bun (`Bun.serve`)',
    kind: 'process',
    hono: true,
    route: HONO_WEBHOOK_ROUTE,
    pkg: '@oven/bun-linux-x64',
    bin: 'bin/bun',
    args: ['run'],
  },
  {
    id: 'hono-deno',
    runtime: 'Hono adapter on Deno (`Deno.serve`)',
    kind: 'process',
    hono: true,
    route: HONO_WEBHOOK_ROUTE,
    pkg: '@deno/linux-x64-glibc',
    bin: 'deno',
    args: ['run', '--allow-net'],
  },
  {
    id: 'hono-workerd',
    runtime: 'Hono adapter on workerd',
    kind: 'workerd',
    hono: true,
    route: HONO_WEBHOOK_ROUTE,
    pkg: '@cloudflare/workerd-linux-64',
    bin: 'bin/workerd',
    flags: [],
  },
  {
    id: 'hono-workerd-web-only',
    runtime: 'Hono adapter on workerd, Node APIs off',
    kind: 'workerd',
    hono: true,
    route: HONO_WEBHOOK_ROUTE,
    pkg: '@cloudflare/workerd-linux-64',
    bin: 'bin/workerd',
    flags: ['no_nodejs_compat', 'no_nodejs_compat_v2'],
  },
  // `hono/vercel`'s `handle(app)` in a catch-all edge route of its own fixture (a second app, so
  // its `next build` never shares a `.next` folder with the other Next cell's).
  {
    id: 'hono-next-edge',
    runtime: "Hono adapter in a Next.js `runtime = 'edge'` route",
    kind: 'next',
    hono: true,
    pkg: 'next',
    bin: 'dist/bin/next',
    fixture: 'fixtures/next-hono',
    route: HONO_WEBHOOK_ROUTE,
  },
];

/**
 * The check judged from outside: the receiver the runtime serves over HTTP (core's on its own
 * server, or the framework's webhook route) took the emulator's deliveries and refused a forgery.
 */
export const SERVED_CHECK = 'served-receiver';

/** The Hono cells' checks, judged from outside: a submit through the app's JSON route, a read of it. */
export const HONO_CHECKS = ['hono-submit', 'hono-read'];

/** The checks a cell runs: the scenario's (or the Hono app's), then the served receiver's. */
export function checksOf(cell) {
  if (cell.pending) return [];
  return [...(cell.hono ? HONO_CHECKS : CHECKS), SERVED_CHECK];
}
