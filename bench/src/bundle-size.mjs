// Row 3. Bundle size: what an app pays to ship the client. esbuild --bundle --minify, then
// gzip -9, of `import * as x from 'pkg'` (the whole client), and of `import { verifyWebhook }`
// alone from @mediagen/core (does tree-shaking work?). Node builtins stay external
// (platform node), so every package is charged only for its own code and dependencies.

import { fileURLToPath } from 'node:url';
import { gzippedSize as measure } from '../../packages/core/scripts/gzipped-size.mjs';
import { BUDGETS, CLIENT_BUDGET_NOTE, ROOT_BUDGET_NOTE } from '../../packages/core/scripts/size-budgets.mjs';
import { fmt } from './measure.mjs';

export const PEERS = ['replicate', '@fal-ai/client', '@runwayml/sdk', 'openai', 'stripe'];
// Budgets shared with `pnpm size` (one place: packages/core/scripts/size-budgets.mjs).
const { client: CLIENT_BUDGET, root: CORE_BUDGET, verify: VERIFY_BUDGET } = BUDGETS;
const resolveDir = fileURLToPath(new URL('..', import.meta.url));

/** Core's own measure (shared with `pnpm size`), from the bench's folder so peers resolve. */
export const gzippedSize = (contents) => measure(contents, resolveDir);

const whole = (pkg) => `import * as x from ${JSON.stringify(pkg)}; globalThis.__keep = x;`;

async function sizeOf(contents) {
  try {
    return await gzippedSize(contents);
  } catch (e) {
    return { error: e.errors?.[0]?.text ?? String(e.message ?? e).split('\n')[0] };
  }
}

export async function run() {
  const core = await sizeOf(whole('@mediagen/core'));
  const clientOnly = await sizeOf(
    `import { MediaGenClient, MediaGenError, isMediaGenError, APIError } from '@mediagen/core'; globalThis.__keep = [MediaGenClient, MediaGenError, isMediaGenError, APIError];`,
  );
  const verifyOnly = await sizeOf(`import { verifyWebhook } from '@mediagen/core'; globalThis.__keep = verifyWebhook;`);
  const peers = {};
  for (const p of PEERS) peers[p] = await sizeOf(whole(p));
  const cell = (s) => (s.error ? `error: ${s.error}` : `${fmt.bytes(s.gz)} gz`);
  const ratios = Object.fromEntries(
    Object.entries(peers)
      .filter(([, s]) => !s.error && !core.error)
      .map(([p, s]) => [p, s.gz / core.gz]),
  );
  const smallest = Math.min(...Object.values(ratios));
  const rows = [
    {
      id: 'bundle-core',
      what: 'Bundle: import * (whole client), min+gz',
      ours: core.error ? `error: ${core.error}` : `${core.gz} B gz (${fmt.bytes(core.min)} min)`,
      peers: Object.fromEntries(Object.entries(peers).map(([p, s]) => [p, cell(s)])),
      floor: '—',
      ratio: Number.isFinite(smallest) ? `peers are ${smallest.toFixed(1)}×–${Math.max(...Object.values(ratios)).toFixed(1)}× ours` : 'n/a',
      target: `< ${CORE_BUDGET} B gz`,
      status: core.error ? 'not measured' : core.gz < CORE_BUDGET ? 'pass' : 'miss',
      note: ROOT_BUDGET_NOTE,
    },
    {
      id: 'bundle-client',
      what: 'Bundle: the client alone (MediaGenClient + errors), min+gz',
      ours: clientOnly.error ? `error: ${clientOnly.error}` : `${clientOnly.gz} B gz (${fmt.bytes(clientOnly.min)} min)`,
      peers: {},
      floor: '—',
      ratio: core.error || clientOnly.error ? 'n/a' : `${(clientOnly.gz / core.gz).toFixed(2)}× the whole core`,
      target: `< ${CLIENT_BUDGET} B gz`,
      status: clientOnly.error ? 'not measured' : clientOnly.gz < CLIENT_BUDGET ? 'pass' : 'miss',
      note: CLIENT_BUDGET_NOTE,
    },
  ];
  let verifyRow;
  if (verifyOnly.error) {
    verifyRow = {
      id: 'bundle-verify',
      what: 'Bundle: import { verifyWebhook } alone',
      ours: `not measured: ${/No matching export/.test(verifyOnly.error) ? 'verifyWebhook missing from @mediagen/core' : verifyOnly.error}`,
      peers: {},
      floor: '—',
      ratio: 'n/a',
      target: `< ${VERIFY_BUDGET} B gz`,
      status: 'not measured',
    };
  } else {
    verifyRow = {
      id: 'bundle-verify',
      what: 'Bundle: import { verifyWebhook } alone',
      ours: `${verifyOnly.gz} B gz (${fmt.bytes(verifyOnly.min)} min)`,
      peers: {},
      floor: '—',
      ratio: core.error ? 'n/a' : `${(verifyOnly.gz / core.gz).toFixed(2)}× the whole core`,
      target: `< ${VERIFY_BUDGET} B gz`,
      status: verifyOnly.gz < VERIFY_BUDGET ? 'pass' : 'miss',
      note: 'tree-shaking check',
    };
  }
  rows.push(verifyRow);
  return { rows, raw: { core, clientOnly, verifyOnly, peers, ratios } };
}
