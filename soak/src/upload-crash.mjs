// Part 4's upload points (issue 33): an app that takes uploads (src/upload-app.mjs: core's handler,
// the generation ledger on SQLite, a FileMediaStore and an upload secret that both outlive the
// process) killed with SIGKILL
//   after-upload  between the browser's upload (its `input` token in hand) and its submit: the app
//                 restarts, the browser submits with the token it kept;
//   before-202    between the submit and its 202 (the service has billed and holds its answer):
//                 the restarted app resends the recorded body, the input's link in it, verbatim;
// then restarted, `runs` times per point. The links are served by a second instance of the app's
// handler sharing the folder, up all along (what a deployment behind one address has): the
// service fetches an input when the generation starts, which may be while the killed app is down. Checked from the emulator's account ledger and the
// store: billed exactly once, the intent completed (a resend with another body would be refused
// 422 IDEMPOTENCY_KEY_REUSED and the intent would end failed), the recorded input a link to the
// app's own uploads route, the terminal state handed over once.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MediaGenClient } from '@mediagen/core';
import { createNodeHandler, FileMediaStore } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';
import { startEmulator } from '@mediagen/emulator';
import { DIE_WITH_PARENT } from './crash.mjs';
import { freePort } from './ports.mjs';

export const UPLOAD_CRASH_POINTS = ['after-upload', 'before-202'];
/** Runs per point in the full soak (each before-202 run waits out the dead app's lease, about 8 s); `--quick` runs 3. */
export const UPLOAD_FULL_RUNS = 20;
const API_KEY = 'svc_live_soak_upload_crash';
const ACCOUNT = 'acct_upload_crash';
const SECRET = 'soak-upload-secret-kept-across-restarts';
const APP = fileURLToPath(new URL('./upload-app.mjs', import.meta.url));
const LIMIT_MS = 60_000;
/** A valid 1x1 PNG: the person's photo. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082',
  'hex',
);
const running = new Set();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

export async function uploadCrashPart({ runs, log = () => {}, progress = () => {} }) {
  const directory = mkdtempSync(join(tmpdir(), 'mediagen-soak-upload-crash-'));
  const emulator = await startEmulator({
    port: 0,
    allowLoopbackInputs: true,
    config: { timeScale: 0.001, accounts: [{ id: ACCOUNT, tier: 'ultimate', balance: 1_000_000, keys: [{ key: API_KEY }] }] },
  });
  const failures = [];
  const results = {};
  try {
    for (const point of UPLOAD_CRASH_POINTS) {
      const c = (results[point] = { runs: 0, billedOther: 0, notCompleted: 0, handedOther: 0, notLink: 0, finalMs: [] });
      for (let i = 0; i < runs; i++) {
        progress(`uploads ${point} ${i + 1}/${runs}`);
        const outcome = await oneRun({ emulator, point, dir: join(directory, `${point}-${i}`), key: `soak-upload-${point}-${i}` });
        c.runs++;
        if (outcome.billed !== 1) c.billedOther++;
        if (!outcome.completed) c.notCompleted++;
        if (!outcome.handedOnce) c.handedOther++;
        if (!outcome.linkRecorded) c.notLink++;
        if (outcome.finalMs !== undefined) c.finalMs.push(outcome.finalMs);
        for (const problem of outcome.problems) failures.push(`crash uploads ${point} run ${i + 1}: ${problem}`);
      }
      log(
        `crash uploads ${point}: ${c.runs} runs, billed other than once ${c.billedOther}, not completed ${c.notCompleted}, handed over other than once ${c.handedOther}, input not recorded as a link ${c.notLink}`,
      );
    }
  } finally {
    await emulator.close();
    rmSync(directory, { recursive: true, force: true });
  }
  return { results, failures };
}

async function oneRun({ emulator, point, dir, key }) {
  mkdirSync(dir, { recursive: true });
  const control = (method, path, body) =>
    fetch(`${emulator.url}/__emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => r.json());
  const reserves = async () =>
    (await control('GET', `/accounts/${ACCOUNT}`)).ledger.filter((l) => l.type === 'reserve').map((l) => l.generation_id);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const links = await linkInstance(join(dir, 'uploads'), emulator.url);
  const env = {
    LINK_ORIGIN: links.origin,
    DB_FILE: join(dir, 'ledger.db'),
    UPLOAD_DIR: join(dir, 'uploads'),
    UPLOAD_SECRET: SECRET,
    HANDLED_FILE: join(dir, 'handled'),
    PORT: String(port),
    KEY: key,
    BASE_URL: emulator.url,
    API_KEY,
  };
  const problems = [];
  const before = new Set(await reserves());
  // The browser's photo: a byte of its own per run, so each run stores (and links) its own object.
  const photo = Buffer.concat([PNG, Buffer.from(key)]);
  const submit = (input) =>
    fetch(`${origin}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ model: 'image-upscale', input_image: input }),
    });

  const first = start(env);
  await first.line((l) => l === 'listening');
  const uploaded = await fetch(`${origin}/api/uploads`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: photo });
  const { input } = uploaded.status === 201 ? await uploaded.json() : {};
  if (!input) problems.push(`the upload answered ${uploaded.status}`);
  if (point === 'before-202') {
    // The service bills, then sits on the 202 until the app is killed.
    await control('POST', '/faults', { endpoint: 'generate', when: 'after', hold: true });
    const pending = submit(input).catch(() => undefined);
    await control('GET', '/faults/held?min=1');
    first.kill();
    await pending;
    await control('POST', '/faults/release', {}); // to a dead socket: nobody hears it
    await control('DELETE', '/faults');
  } else {
    first.kill();
  }
  const killed = await first.exited;
  if (killed.signal !== 'SIGKILL') problems.push(`the app was not killed at ${point} (exit ${killed.code})`);
  const killedAt = Date.now();

  const restarted = start({ ...env, RESTART: '1' });
  await restarted.line((l) => l === 'listening');
  if (point === 'after-upload') {
    // The browser kept its token across the app's death: the submit it makes now is the first.
    const accepted = await submit(input);
    if (accepted.status !== 202) problems.push(`the submit after the restart answered ${accepted.status}: ${await accepted.text()}`);
  }
  const settledLine = await restarted.line((l) => l.startsWith('settled '));
  const finalMs = settledLine ? Date.now() - killedAt : undefined;
  const exit = await restarted.exited;
  await links.close();
  if (exit.code !== 0) problems.push(`the restarted app did not settle the intent (${exit.code ?? exit.signal})`);

  const billed = (await reserves()).filter((id) => !before.has(id));
  if (billed.length !== 1) problems.push(`billed ${billed.length} times`);
  const [, id, status, recorded] = (settledLine ?? '').split(' ');
  const completed = status === 'completed' && id === billed[0];
  if (!completed) problems.push(`the intent ended ${status} (${id}), not completed as ${billed[0]}`);
  const lines = existsSync(env.HANDLED_FILE) ? readFileSync(env.HANDLED_FILE, 'utf8').split('\n').filter(Boolean) : [];
  const handedOnce = lines.length === 1 && lines[0] === `${billed[0]} completed`;
  if (!handedOnce) problems.push(`handed to the handler ${lines.length} times (${lines.join('; ')})`);
  // What the ledger recorded, and so resent: the input as the app's signed link, not the token.
  const linkRecorded =
    typeof recorded === 'string' && recorded.startsWith(`${links.origin}/api/uploads/`) && recorded.includes('signature=');
  if (!linkRecorded) problems.push(`the recorded input is not the upload's link: ${recorded}`);
  return { billed: billed.length, completed, handedOnce, linkRecorded, finalMs, problems };
}

/** Another instance of the app's handler on the same upload folder, in this process: it serves the links. */
async function linkInstance(directory, baseUrl) {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const handler = createMediaGenHandler({
    client: new MediaGenClient({ apiKey: API_KEY, baseUrl, maxRetries: 0 }),
    basePath: '/api',
    // It only serves links (no session: the signature is the authority); nobody submits here.
    allowAnonymous: true,
    uploads: { store: new FileMediaStore({ directory, url: `${origin}/api/uploads` }), secret: SECRET },
    onError: () => {},
  });
  const handle = createNodeHandler(handler, { onError: () => {} });
  server.on('request', (req, res) => void handle(req, res));
  return {
    origin,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The app in its own process; `line(match)` resolves with the first stdout line that matches (or undefined at exit). */
function start(env) {
  const proc = spawn(process.execPath, ['--import', DIE_WITH_PARENT, APP], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  running.add(proc);
  const seen = [];
  const waiting = new Set();
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      seen.push(line);
      for (const w of waiting) if (w.match(line)) waiting.delete(w), w.resolve(line);
    }
  });
  const limit = setTimeout(() => proc.kill('SIGKILL'), LIMIT_MS);
  const exited = new Promise((resolve) =>
    proc.once('exit', (code, signal) => {
      running.delete(proc);
      clearTimeout(limit);
      for (const w of waiting) w.resolve(undefined);
      waiting.clear();
      resolve({ code, signal });
    }),
  );
  return {
    exited,
    kill: () => proc.kill('SIGKILL'),
    line: (match) =>
      new Promise((resolve) => {
        const found = seen.find(match);
        if (found || proc.exitCode !== null || proc.signalCode !== null) return resolve(found);
        waiting.add({ match, resolve });
      }),
  };
}

/** The report's lines for these points. */
export function uploadCrashReport({ results }, runs) {
  const lines = [`   uploads (SQLite, one app restarted; FileMediaStore and upload secret kept): ${runs} runs per point`];
  for (const [point, c] of Object.entries(results)) {
    const sorted = [...c.finalMs].sort((a, b) => a - b);
    const final = sorted.length ? `median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms` : 'none measured';
    lines.push(
      `     ${point}: billed other than once ${c.billedOther}, not completed ${c.notCompleted}, handed over other than once ${c.handedOther}, input not recorded as its link ${c.notLink}; time-to-final ${final}`,
    );
  }
  return lines;
}

// `node soak/src/upload-crash.mjs [--quick] [--runs=<n>]`: these points alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runsArg = process.argv.find((a) => a.startsWith('--runs='));
  const runs = runsArg ? Number(runsArg.slice('--runs='.length)) : process.argv.includes('--quick') ? 3 : UPLOAD_FULL_RUNS;
  const started = Date.now();
  const part = await uploadCrashPart({
    runs,
    log: (msg) => process.stderr.write(`soak crash ${((Date.now() - started) / 1000).toFixed(1)}s: ${msg}\n`),
  });
  console.log(uploadCrashReport(part, runs).join('\n'));
  console.log(part.failures.length === 0 ? 'all invariants hold' : `INVARIANTS FAILED:\n  ${part.failures.join('\n  ')}`);
  process.exit(part.failures.length === 0 ? 0 : 1);
}
