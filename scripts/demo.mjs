// `pnpm demo`: the whole system on one machine with no account. Starts the local emulator and
// the studio (apps/next-sample) wired together: the emulator's account sends its webhooks to
// the studio's receiver, signed with the secret the studio is configured with.
//   pnpm demo           prints the URL to open; Ctrl-C stops both
//   pnpm demo --smoke   submits one image generation through the studio, waits for it to settle
//                       and for its webhook (delivered 2xx to the studio, recorded by it), prints
//                       the output URL and the credits charged, exits 0 (CI runs it)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '@mediagen/emulator';

const smoke = process.argv.includes('--smoke');
const app = fileURLToPath(new URL('../apps/next-sample/', import.meta.url));
const KEY = 'svc_live_emulator_demo';
const SECRET = 'whsec_emulator_demo';
const ACCOUNT = 'acct_demo';

if (!existsSync(join(app, '.next', 'BUILD_ID'))) {
  console.error(
    'The studio is not built: run `pnpm demo` from the repo root (it builds first), or `pnpm turbo run build --filter=next-sample...`.',
  );
  process.exit(1);
}

/** A port: the preferred one when it is free (interactive runs), else any free one. */
async function port(preferred) {
  const tryListen = (p) =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(p, '127.0.0.1', () => {
        const { port: got } = server.address();
        server.close(() => resolve(got));
      });
    });
  return (preferred && (await tryListen(preferred))) || (await tryListen(0));
}

// biome-ignore lint/suspicious/noUndeclaredEnvVars: the demo script runs outside turbo (only its build step is a turbo task)
const appPort = await port(smoke ? 0 : Number(process.env.PORT ?? 3000));
const studioUrl = `http://127.0.0.1:${appPort}`;
// http: webhook URLs are accepted by the emulator unless `requireHttpsWebhooks` (the real service takes HTTPS only).
const emulator = await startEmulator({
  port: smoke ? 0 : await port(4010),
  config: {
    timeScale: smoke ? 0.1 : 0.5,
    // The studio serves uploaded inputs on its own loopback address: let the emulator fetch them
    // (the real service fetches public https links only).
    allowLoopbackInputs: true,
    accounts: [
      {
        id: ACCOUNT,
        tier: 'pro',
        balance: 15_000,
        keys: [{ key: KEY }],
        webhooks: [{ url: `${studioUrl}/api/webhooks/mediagen`, secret: SECRET, enabled: true }],
      },
    ],
  },
});

const dataDir = smoke ? mkdtempSync(join(tmpdir(), 'mediagen-demo-')) : undefined;
const studio = spawn(
  process.execPath,
  [join(app, 'node_modules/next/dist/bin/next'), 'start', '--port', String(appPort), '--hostname', '127.0.0.1'],
  {
    cwd: app,
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      PORT: String(appPort),
      MEDIAGEN_API_KEY: KEY,
      MEDIAGEN_BASE_URL: emulator.url,
      MEDIAGEN_WEBHOOK_SECRET: SECRET,
      ...(dataDir ? { MEDIAGEN_SAMPLE_DB: join(dataDir, 'generations.db') } : {}),
    },
    stdio: smoke ? ['ignore', 'ignore', 'inherit'] : ['ignore', 'inherit', 'inherit'],
  },
);

/** How long the studio gets to end after SIGTERM before it is killed. */
const STOP_GRACE_MS = 5_000;
let studioEnded = false;
const studioExit = new Promise((resolve) => studio.once('exit', resolve));
void studioExit.then(() => (studioEnded = true));
/** True once the studio has exited, false if `ms` passed first. */
const studioEndsWithin = (ms) => {
  let timer;
  return Promise.race([studioExit.then(() => true), new Promise((resolve) => (timer = setTimeout(resolve, ms, false)))]).finally(() =>
    clearTimeout(timer),
  );
};

let stopping = false;
/** Stops the studio and waits until it has exited (SIGKILL if SIGTERM is not enough), then the emulator. */
async function stop(code) {
  if (stopping) return;
  stopping = true;
  if (!studioEnded) {
    studio.kill('SIGTERM');
    if (!(await studioEndsWithin(STOP_GRACE_MS))) {
      console.error(`the studio did not stop within ${STOP_GRACE_MS / 1000} s of SIGTERM: killing it`);
      studio.kill('SIGKILL');
      await studioEndsWithin(STOP_GRACE_MS);
    }
  }
  await emulator.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}
studio.once('exit', (code, signal) => {
  if (!stopping) {
    console.error(`the studio exited (${signal ?? `code ${code}`})`);
    void stop(1);
  }
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void stop(0));

async function until(check, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

try {
  await until(async () => (await fetch(`${studioUrl}/api/credits`)).ok, 'the studio to start', 30_000);
  if (!smoke) {
    console.log(`\nMediaGen emulator  ${emulator.url}  (account ${ACCOUNT}, webhooks -> the studio)`);
    console.log(`MediaGen Studio    ${studioUrl}   <- open this\n\nCtrl-C stops both.`);
  } else {
    // The studio scopes everything to the browser's user (a cookie it sets on first contact): keep it, as a browser does.
    let cookie;
    const asUser = async (url, init = {}) => {
      const res = await fetch(url, { ...init, headers: { ...init.headers, ...(cookie ? { cookie } : {}) } });
      cookie = res.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      return res;
    };
    const submit = await asUser(`${studioUrl}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ model: 'image-fast', prompt: 'a lighthouse at dusk, oil painting', aspect_ratio: '16:9', seed: 42 }),
    });
    const submitted = await submit.json();
    if (submit.status !== 202) throw new Error(`submit answered ${submit.status}: ${JSON.stringify(submitted)}`);
    const id = submitted.generation_id;
    console.log(`submitted ${id} (${submitted.model}, ${submitted.credits_estimate} credits reserved)`);
    const record = async () => {
      const { generations } = await (await asUser(`${studioUrl}/api/generations`)).json();
      return generations.find((x) => x.generation_id === id);
    };
    // Settled by whichever came first: the webhook, or the studio's ledger polling (its reconciler).
    const settled = await until(
      async () => {
        const g = await record();
        return g && (g.status === 'completed' || g.status === 'failed') ? g : undefined;
      },
      'the generation to settle',
      60_000,
    );
    if (settled.status !== 'completed') throw new Error(`the generation ended ${settled.status}: ${JSON.stringify(settled.error)}`);
    // Either way the webhook must have arrived: the emulator's log shows a delivery to the
    // studio's receiver answered 2xx, and the studio recorded the event.
    const webhookUrl = `${studioUrl}/api/webhooks/mediagen`;
    const delivery = await until(
      async () => {
        const { deliveries } = await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${id}`)).json();
        return deliveries.find((d) => d.url === webhookUrl && d.status >= 200 && d.status < 300);
      },
      'a 2xx webhook delivery to the studio',
      20_000,
    );
    // The studio's ledger applied it (a webhook, or its reconciler's poll if that came first).
    const done = settled;
    const output = await fetch(done.output_url);
    if (!output.ok || !output.headers.get('content-type')?.startsWith('image/'))
      throw new Error(`the output link answered ${output.status}`);
    console.log(`completed via webhook (delivery ${delivery.outcome}, HTTP ${delivery.status})`);
    console.log(`output URL       ${done.output_url}`);
    console.log(`credits charged  ${done.credits_used}`);
    await stop(0);
  }
} catch (error) {
  console.error(`demo failed: ${error instanceof Error ? error.message : error}`);
  await stop(1);
}
