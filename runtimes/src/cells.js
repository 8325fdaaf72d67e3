import { CHECKS } from './scenario.js';

/**
 * The matrix's rows: each runtime, the registry package its binary comes from (pinned in
 * package.json; a binary inside a registry package, nothing downloaded from elsewhere), and how
 * the scenario is started on it. The README table and the test are made from this list.
 *
 * Every cell serves a webhook receiver the emulator delivers to: core's, on the runtime's own
 * server. `kind: 'next'` cells build a fixture app with `next build` and serve it with `next
 * start`: the scenario runs inside an edge route, and `route` names the framework's webhook route
 * (edge too) that the emulator delivers to instead. A `pending` cell is listed, and shown in the README with its
 * reason, until it can run.
 */
export const CELLS = [
  { id: 'node-20', runtime: 'Node 20', kind: 'process', pkg: 'node-20', bin: 'bin/node', args: [] },
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
  {
    id: 'hono-edge',
    runtime: "Hono adapter, `runtime = 'edge'`",
    pending:
      'the Hono adapter is being written on another branch (issue 23); its cell will be a fixture like runtimes/fixtures/next-edge, with its webhook route as `route`',
  },
];

/**
 * The check judged from outside: the receiver the runtime serves over HTTP (core's on its own
 * server, or the framework's webhook route) took the emulator's deliveries and refused a forgery.
 */
export const SERVED_CHECK = 'served-receiver';

/** The checks a cell runs: the scenario's, then the served receiver's. */
export function checksOf(cell) {
  return cell.pending ? [] : [...CHECKS, SERVED_CHECK];
}
