// `pnpm soak --fleet [--quick]` (issue 36): three instances of the built Next studio behind HAProxy,
// on PostgreSQL (the ledger) and Redis (events, de-dup, the gate), the emulator delivering
// webhooks to the balancer with faults on; simulated browser users and a few Chromium pages
// submitting and streaming through it; then fire: a rolling redeploy (graceful drain), SIGKILLs
// with restarts, one instance partitioned from Redis. Invariants from the emulator's ledger and
// each user's view; figures for calm and fire. Resolves with `{ failures, lines }`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '@mediagen/emulator';
import pg from 'pg';
import { freePort } from '../ports.mjs';
import { startOwnRedis } from '../redis-server.mjs';
import { startChromiumUsers } from './chromium.mjs';
import { startDeliveryChaos, startServiceMeter } from './forwarders.mjs';
import { startHaproxy } from './haproxy.mjs';
import { summary } from './stats.mjs';
import { studioInstance } from './studio.mjs';
import { startTcpProxy } from './tcp-proxy.mjs';
import { createTimeline } from './timeline.mjs';
import { createUser } from './user.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const KEY = 'svc_live_soak_fleet';
const ACCOUNT = 'acct_fleet';
const SECRET = 'whsec_soak_fleet';
/** The issue's bound: an interrupted intent is final within this of an instance being up again. */
const FINAL_WITHIN_MS = 15_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const random = (min, max) => min + Math.random() * (max - min);

export const FLEET_PLAN = {
  quick: {
    users: 40,
    pages: 2,
    thinkMs: [2_000, 6_000],
    calmMs: 30_000,
    kills: 2,
    killGapMs: [4_000, 10_000],
    partitionMs: 15_000,
    afterMs: 20_000,
  },
  full: {
    users: 300,
    pages: 5,
    thinkMs: [90_000, 150_000],
    calmMs: 120_000,
    kills: 6,
    killGapMs: [8_000, 30_000],
    partitionMs: 45_000,
    afterMs: 60_000,
  },
};

/** What the run is doing now, for a deadline's report. */
let progress = () => 'starting';
export const fleetProgress = () => progress();

export async function runFleet({ quick, log }) {
  const plan = quick ? FLEET_PLAN.quick : FLEET_PLAN.full;
  const failures = [];
  const check = (ok, what) => ok || failures.push(what);
  const cleanup = [];
  const started = Date.now();
  try {
    log('fleet: building the studio (next build, cached by turbo)');
    // Through pnpm (turbo needs its package manager on the PATH), as `pnpm soak` builds the rest.
    const build = spawnSync(
      'npx',
      ['-y', 'pnpm@12.21.0', 'turbo', 'run', 'build', '--filter=next-sample...', '--output-logs=errors-only'],
      {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', TURBO_TELEMETRY_DISABLED: '1' },
      },
    );
    if (build.status !== 0) throw new Error(`building next-sample failed (${build.status})`);

    const dir = mkdtempSync(join(tmpdir(), 'mediagen-fleet-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const [emuPort, meterPort, chaosPort, lbPort, redisPort, ...rest] = await Promise.all(Array.from({ length: 11 }, freePort));
    const names = ['s1', 's2', 's3'];
    const instancePorts = rest.slice(0, 3);
    const proxyPorts = rest.slice(3, 6);

    // The ledger: a database of its own on the machine's PostgreSQL, dropped at the end.
    const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const database = `mg_fleet_${process.pid}_${Date.now().toString(36)}`;
    await admin.query(`CREATE DATABASE ${database}`);
    cleanup.push(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
      await admin.end();
    });
    const ledgerUrl = new URL(databaseUrl);
    ledgerUrl.pathname = `/${database}`;

    const redis = await startOwnRedis(redisPort);
    cleanup.push(() => redis.close());
    process.on('exit', () => redis.close()); // a deadline's exit skips the cleanup; a daemon would outlive it
    const proxies = await Promise.all(proxyPorts.map((port) => startTcpProxy({ port, target: { host: '127.0.0.1', port: redisPort } })));
    cleanup.push(() => Promise.all(proxies.map((p) => p.close())));

    const lbUrl = `http://127.0.0.1:${lbPort}`;
    const chaos = await startDeliveryChaos({ port: chaosPort, target: lbUrl });
    cleanup.push(() => chaos.close());
    const emulator = await startEmulator({
      port: emuPort,
      config: {
        // Images render in 1.4-4.5 s: streams are open when the fire comes.
        timeScale: 0.25,
        accounts: [
          {
            id: ACCOUNT,
            tier: 'ultimate',
            balance: 100_000_000,
            keys: [{ key: KEY }],
            webhooks: [{ url: `${chaos.url}/api/webhooks/mediagen`, secret: SECRET, enabled: true }],
          },
        ],
      },
    });
    cleanup.push(() => emulator.close());
    const meter = await startServiceMeter({ port: meterPort, target: emulator.url });
    cleanup.push(() => meter.close());

    const timeline = createTimeline(names);
    const instances = names.map((name, i) =>
      studioInstance({
        name,
        port: instancePorts[i],
        log,
        env: {
          MEDIAGEN_API_KEY: KEY,
          MEDIAGEN_BASE_URL: meter.url,
          MEDIAGEN_WEBHOOK_SECRET: SECRET,
          MEDIAGEN_DATABASE_URL: ledgerUrl.href,
          MEDIAGEN_REDIS_URL: proxies[i].url,
          MEDIAGEN_DRAIN_TIMEOUT_MS: '20000',
          MEDIAGEN_UPLOADS_DIR: join(dir, 'uploads'),
          PUBLIC_URL: lbUrl,
        },
      }),
    );
    cleanup.push(() => Promise.all(instances.map((i) => i.kill())));
    const startInstance = async (instance) => {
      await instance.start();
      timeline.mark(instance.name, 'up');
    };
    log('fleet: starting three studio instances');
    for (const instance of instances) await startInstance(instance);
    const lb = await startHaproxy({ dir, port: lbPort, servers: instances.map((i) => ({ name: i.name, port: i.port })) });
    cleanup.unshift(() => lb.stop());
    await waitInRotation(lbUrl, names);
    log(`fleet: balancer ${lbUrl} (HAProxy, ${lb.file}), instances ${instances.map((i) => i.url).join(' ')}, emulator ${emulator.url}`);

    // The emulator's faults through the run: lost 202s (billed, answer lost), 5xx before
    // enqueue, resets, slow submits, failed status reads. One every 1.5 s, as long as users submit.
    const FAULTS = [
      ['lost 202 (500 after enqueue)', { endpoint: 'generate', status: 500, when: 'after' }],
      ['lost 202 (reset after enqueue)', { endpoint: 'generate', reset: true, when: 'after' }],
      ['500 before enqueue', { endpoint: 'generate', status: 500, when: 'before' }],
      ['slow submit (2 s)', { endpoint: 'generate', delayMs: 2_000 }],
      ['500 on a status read', { endpoint: 'status', status: 500 }],
      ['502 on a status read', { endpoint: 'status', status: 502 }],
    ];
    const injected = Object.fromEntries(FAULTS.map(([label]) => [label, 0]));
    let submitting = true;
    const faults = (async () => {
      for (let i = 0; submitting; i++) {
        const [label, fault] = FAULTS[i % FAULTS.length];
        const ok = await fetch(`${emulator.url}/__emulator/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ count: 1, ...fault }),
          signal: AbortSignal.timeout(10_000),
        }).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) injected[label]++;
        await sleep(1_500);
      }
    })();

    // Phases: calm, then fire (redeploy, kills, partition), then after.
    let fireStart = Number.POSITIVE_INFINITY;
    let fireEnd = Number.POSITIVE_INFINITY;
    const phaseOf = (t) => (t < fireStart ? 'calm' : t < fireEnd ? 'fire' : 'after');
    const ownerById = new Map();
    const record = {
      own: (id, user) => ownerById.set(id, user),
      ownerOf: (id) => ownerById.get(id),
      interrupted: [],
      resubmitted: [],
      lostAnswers: [],
    };
    const users = Array.from({ length: plan.users }, (_, index) =>
      createUser({
        index,
        base: lbUrl,
        phaseOf,
        stopSubmitting: () => !submitting,
        thinkMs: () => random(...plan.thinkMs),
        record,
      }),
    );
    progress = () => {
      const doing = {};
      for (const u of users)
        doing[u.view.doing.replace(/ \d+| fleet-\S+| gen_\S+/g, ' N')] =
          (doing[u.view.doing.replace(/ \d+| fleet-\S+| gen_\S+/g, ' N')] ?? 0) + 1;
      const stuck = users
        .filter((u) => u.view.doing !== 'done')
        .slice(0, 5)
        .map((u) => `${u.view.name}: ${u.view.doing}`);
      return `users: ${JSON.stringify(doing)}; e.g. ${stuck.join('; ')}`;
    };
    log(`fleet: ${plan.users} simulated users and ${plan.pages} Chromium pages on the balancer`);
    const runs = users.map(async (user, i) => {
      await sleep((i / users.length) * plan.thinkMs[1]); // arrive spread over one think time, as visitors do
      return user.run();
    });
    const pages = await startChromiumUsers({ base: lbUrl, pages: plan.pages });

    await sleep(plan.calmMs);
    fireStart = Date.now();

    log('fleet: fire 1/3, a rolling redeploy (SIGTERM: drain, exit; start again)');
    const drains = [];
    for (const instance of instances) {
      timeline.mark(instance.name, 'stop');
      const t = Date.now();
      const how = await instance.stop();
      drains.push({ name: instance.name, ms: Date.now() - t, code: how.code, signal: how.signal });
      log(
        `fleet: ${instance.name} exited ${how.code ?? how.signal} ${((Date.now() - t) / 1000).toFixed(1)} s after SIGTERM${how.errors ? `: ${how.errors.trim().split('\n').slice(-3).join(' | ')}` : ''}`,
      );
      check(
        how.code === 0,
        `redeploy: ${instance.name} exited ${how.code ?? how.signal} after SIGTERM, not 0 (drained): ${how.errors?.slice(-300)}`,
      );
      await startInstance(instance);
      await waitInRotation(lbUrl, [instance.name]);
    }

    log(`fleet: fire 2/3, ${plan.kills} SIGKILLs at random intervals, each restarted`);
    for (let k = 0; k < plan.kills; k++) {
      await sleep(random(...plan.killGapMs));
      const instance = instances[Math.floor(Math.random() * instances.length)];
      timeline.mark(instance.name, 'kill');
      await instance.kill();
      await sleep(random(500, 3_000)); // the platform notices and restarts it
      await startInstance(instance);
    }
    await waitInRotation(lbUrl, names);

    const victim = instances[Math.floor(Math.random() * instances.length)];
    log(`fleet: fire 3/3, ${victim.name} partitioned from Redis for ${plan.partitionMs / 1000} s`);
    timeline.mark(victim.name, 'cut');
    proxies[names.indexOf(victim.name)].cut();
    await sleep(plan.partitionMs);
    proxies[names.indexOf(victim.name)].heal();
    timeline.mark(victim.name, 'heal');
    fireEnd = Date.now();

    log('fleet: after the fire');
    await sleep(plan.afterMs);
    submitting = false;
    log('fleet: users finish what they follow');
    await faults;
    await Promise.all(runs);
    const browserViews = await pages.stop();
    // Every user's last list, once all is final: the end state each one sees.
    const finalLists = await Promise.all(users.map((u) => u.list()));

    // ---- Invariants ----
    const account = await (await fetch(`${emulator.url}/__emulator/accounts/${ACCOUNT}`)).json();
    const reserves = account.ledger.filter((row) => row.type === 'reserve');
    const billed = new Set(reserves.map((row) => row.generation_id));
    const billedTwice = reserves.length - billed.size;
    const views = users.map((u) => u.view);
    const entries = views.flatMap((v) => [...v.accepted.values()]);
    const pageEntries = browserViews.flatMap((v) => v.accepted);
    const acceptedIds = new Set([...entries, ...pageEntries].map((e) => e.id));
    check(billedTwice === 0, `${billedTwice} generations billed twice`);
    const lostIds = [...billed].filter((id) => !acceptedIds.has(id));
    check(lostIds.length === 0, `${lostIds.length} billed generations no user ever saw accepted (lost): ${lostIds.slice(0, 3)}`);
    const unbilled = [...acceptedIds].filter((id) => !billed.has(id));
    check(unbilled.length === 0, `${unbilled.length} accepted generations not in the emulator's ledger: ${unbilled.slice(0, 3)}`);
    // Every accepted submit ends terminal in its user's list.
    let notFinalInList = 0;
    views.forEach((v, i) => {
      const listed = new Map(finalLists[i].map((g) => [g.idempotency_key, g]));
      for (const [key] of v.accepted) {
        const g = listed.get(users[i].listed(key));
        if (!g || !['completed', 'failed'].includes(g.status)) notFinalInList++;
      }
    });
    check(notFinalInList === 0, `${notFinalInList} accepted submits not terminal in their user's final list (lost)`);
    const listMisses = views.flatMap((v) => v.listMisses);
    check(
      listMisses.length === 0,
      `${listMisses.length} times a user's list lacked a submit it had accepted: ${JSON.stringify(listMisses.slice(0, 3))}`,
    );
    const foreign = [...views.flatMap((v) => v.foreign), ...browserViews.flatMap((v) => v.foreign)];
    check(foreign.length === 0, `${foreign.length} times a user saw another user's generation: ${JSON.stringify(foreign.slice(0, 3))}`);
    const userErrors = [...views.flatMap((v) => v.errors), ...browserViews.flatMap((v) => v.errors)];
    check(userErrors.length === 0, `${userErrors.length} user errors: ${userErrors.slice(0, 5).join('; ')}`);
    // Streams: each ends with its terminal event; every cut is the loss of the instance serving it.
    const streams = entries.filter((e) => e.streams && e.streams.length > 0);
    const noTerminal = entries.filter((e) => !e.terminal);
    check(noTerminal.length === 0, `${noTerminal.length} followed generations never got their terminal event`);
    let reconnects = 0;
    let refusedOpens = 0;
    const unexplainedCuts = [];
    const overReconnected = [];
    for (const e of streams) {
      const cuts = e.streams.filter((c) => c.end === 'cut');
      reconnects += cuts.length;
      refusedOpens += e.streams.filter((c) => c.end === 'refused').length;
      for (const c of cuts)
        if (timeline.lossesOf(c.servedBy, c.at, c.endAt).length === 0)
          unexplainedCuts.push({ id: e.id, servedBy: c.servedBy, at: c.at, endAt: c.endAt, errorEvent: c.errorEvent });
      const life = timeline.losses(e.streams[0].at, e.terminalAt ?? Date.now()).length;
      if (cuts.length > life) overReconnected.push({ id: e.id, cuts: cuts.length, losses: life });
    }
    check(
      unexplainedCuts.length === 0,
      `${unexplainedCuts.length} streams cut with no loss of the instance serving them: ${JSON.stringify(unexplainedCuts.slice(0, 3))}`,
    );
    check(
      overReconnected.length === 0,
      `${overReconnected.length} streams reconnected more than once per instance loss: ${JSON.stringify(overReconnected.slice(0, 3))}`,
    );
    // Interrupted intents: listed throughout, final within 15 s of an instance being up again.
    const finality = record.interrupted
      .filter((x) => x.finalAt !== undefined)
      .map((x) => ({ ...x, ms: x.finalAt - (timeline.upAt(x.failedAt) ?? x.failedAt) }));
    check(finality.length === record.interrupted.length, `${record.interrupted.length - finality.length} interrupted intents never final`);
    const late = finality.filter((x) => x.ms > FINAL_WITHIN_MS);
    check(
      late.length === 0,
      `${late.length} interrupted intents final later than 15 s after an instance was up: ${JSON.stringify(late.slice(0, 3))}`,
    );
    const unlisted = record.interrupted.filter((x) => x.listedThroughout === false);
    check(unlisted.length === 0, `${unlisted.length} interrupted intents missing from their owner's list at some read`);
    // The shared gate: the service never answered 429.
    check(
      meter.rateLimited.length === 0,
      `${meter.rateLimited.length} x 429 from the service: ${JSON.stringify(meter.rateLimited.slice(0, 3))}`,
    );
    // The fire happened, or the checks above prove little.
    check(timeline.count('stop') === 3, `the redeploy stopped ${timeline.count('stop')} instances, not 3`);
    check(timeline.count('kill') === plan.kills, `${timeline.count('kill')} kills, planned ${plan.kills}`);
    check(record.lostAnswers.length > 0 || reconnects > 0, 'no submit answer was lost and no stream cut: the fire did not reach the users');
    for (const [label, n] of Object.entries(injected)) check(n > 0, `no "${label}" fault was posted`);
    check(
      chaos.counts.failed > 0 && chaos.counts.slow > 0 && chaos.counts.timeout > 0,
      'the delivery chaos did not fail, slow and time out deliveries',
    );

    const byPhase = (phase, pick) =>
      [...entries, ...pageEntries]
        .filter((e) => e.phase === phase || (!e.phase && phase === 'calm'))
        .map(pick)
        .filter((v) => v !== undefined);
    const pageSubmits = pageEntries.length;
    const lines = [
      '',
      `MediaGen fleet soak${quick ? ' (quick)' : ''}: ${((Date.now() - started) / 1000).toFixed(1)} s; 3 instances of the Next studio behind HAProxy, PostgreSQL ledger, Redis`,
      `   users: ${plan.users} simulated (own cookie, EventSource reconnects) + ${plan.pages} Chromium pages`,
      `   submits accepted: ${entries.length} by simulated users, ${pageSubmits} by Chromium pages; billed ${reserves.length} (${billedTwice} twice), lost ${lostIds.length + notFinalInList}`,
      `   streams: ${streams.length} followed, ${reconnects} reconnects after a cut, ${refusedOpens} opens refused (draining 503 / no server) and retried; Chromium: ${browserViews.reduce((s, v) => s + v.cuts, 0)} browser reconnects, ${browserViews.reduce((s, v) => s + v.reopens, 0)} reopens`,
      `   fire: redeploy of 3 (drain + exit ${drains.map((d) => `${d.name} ${(d.ms / 1000).toFixed(1)} s`).join(', ')}), ${timeline.count('kill')} SIGKILLs with restarts, ${victim.name} cut from Redis for ${plan.partitionMs / 1000} s`,
      `   submit answers lost on the way (5xx, resets, no server) and resent with the same key: ${record.lostAnswers.length} (${Object.entries(
        countBy(record.lostAnswers, (a) => `${a.status || 'no answer'}${a.code ? ` ${a.code}` : ''}`),
      )
        .map(([k, n]) => `${k}: ${n}`)
        .join(
          ', ',
        )}); of them, interrupted intents (found in the user's list, followed there to final): ${record.interrupted.length}, resubmits (not in the ledger: the request reached no instance or was refused first): ${record.resubmitted.length}`,
      `   interrupted intent final after an instance was up: ${summary(finality.map((x) => x.ms))} (bound 15 s)`,
      `   emulator faults posted: ${Object.entries(injected)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `   deliveries: ${chaos.counts.attempts} attempts, failed ${chaos.counts.failed}, past the window ${chaos.counts.timeout}, slow ${chaos.counts.slow}; answered by the fleet ${JSON.stringify(chaos.counts.answered)}`,
      `   service answers to the fleet by status: ${JSON.stringify(meter.statuses)} (429s: ${meter.rateLimited.length})`,
      `   submit latency (through the balancer, to the 202): calm ${summary(byPhase('calm', (e) => e.submitMs))}; fire ${summary(byPhase('fire', (e) => e.submitMs))}; after ${summary(byPhase('after', (e) => e.submitMs))}`,
      `   completion to client (emulator completed_at to the terminal event): calm ${summary(byPhase('calm', (e) => e.completionToClientMs))}; fire ${summary(byPhase('fire', (e) => e.completionToClientMs))}; after ${summary(byPhase('after', (e) => e.completionToClientMs))}`,
      failures.length === 0 ? 'fleet: all invariants hold' : `FLEET INVARIANTS FAILED:\n  ${failures.join('\n  ')}`,
    ];
    return { failures, lines };
  } catch (error) {
    failures.push(`the fleet did not run: ${error?.stack ?? error}`);
    return { failures, lines: [`FLEET FAILED: ${failures.join('\n  ')}`] };
  } finally {
    for (const step of cleanup.reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => {});
  }
}

function countBy(items, keyOf) {
  const counts = {};
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
  return counts;
}

/** Resolves once the balancer's health checks have `names` in rotation (each answers through it; bounded: 60 s). */
async function waitInRotation(lbUrl, names) {
  const seen = new Set();
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const r = await fetch(`${lbUrl}/api/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    const by = r?.headers.get('x-served-by');
    if (r?.status === 200 && by) seen.add(by);
    await r?.body?.cancel().catch(() => {});
    if (names.every((n) => seen.has(n))) return;
    await sleep(100);
  }
  throw new Error(`the balancer did not put ${names.filter((n) => !seen.has(n)).join(', ')} in rotation within 60 s`);
}
