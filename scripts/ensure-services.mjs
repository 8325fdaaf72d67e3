#!/usr/bin/env node
// Brings up what the tests need from the machine, so `pnpm test` passes on a fresh machine with
// only Node and npm: Debian's Chromium (the sample pages' browser tests), Redis on
// 127.0.0.1:6379 (REDIS_URL) for the Redis stores, and PostgreSQL on 127.0.0.1:5432 (DATABASE_URL)
// for the ledger's PostgreSQL store, and HAProxy for the fleet soak. Idempotent and quiet when all are there;
// says what it installs or starts. Installing needs root and apt-get; without them it prints
// the command to run and lets the tests report what is missing.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHROMIUM = '/usr/bin/chromium';
const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const redisHost = redisUrl.hostname || '127.0.0.1';
const redisPort = Number(redisUrl.port || 6379);
const isLocalRedis = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(redisHost);

const databaseUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const pgHost = databaseUrl.hostname || '127.0.0.1';
const pgPort = Number(databaseUrl.port || 5432);
const isLocalPg = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(pgHost);

const say = (message) => console.log(`ensure-services: ${message}`);

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function listening(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

let aptUpdated = false;
function aptInstall(pkg, why) {
  if (process.getuid?.() !== 0 || !onPath('apt-get')) {
    say(`${pkg} is missing (${why}); install it with: sudo apt-get install -y ${pkg}`);
    return false;
  }
  say(`installing ${pkg} with apt-get (${why})…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    aptUpdated = true;
  }
  const result = spawnSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (result.status !== 0) say(`apt-get install ${pkg} failed (exit ${result.status})`);
  return result.status === 0;
}

async function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  aptInstall('chromium', `the sample pages' browser tests drive ${CHROMIUM}`);
}

async function ensureRedis() {
  if (await listening(redisHost, redisPort)) return;
  if (!isLocalRedis) {
    say(`nothing answers at ${redisHost}:${redisPort} (REDIS_URL); the Redis tests will fail until it does`);
    return;
  }
  if (!onPath('redis-server') && !aptInstall('redis-server', `the Redis store tests need a server on ${redisPort}`)) return;
  // An ephemeral server: no snapshots, no append-only file, its log in a fresh temp dir.
  const dir = mkdtempSync(join(tmpdir(), 'mediagen-redis-'));
  say(`starting redis-server on 127.0.0.1:${redisPort} (log: ${join(dir, 'redis.log')})`);
  const args = ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--appendonly', 'no'];
  const result = spawnSync('redis-server', [...args, '--dir', dir, '--logfile', join(dir, 'redis.log')], { stdio: 'inherit' });
  if (result.status !== 0) {
    say(`redis-server failed to start (exit ${result.status})`);
    return;
  }
  for (let i = 0; i < 50; i++) {
    if (await listening('127.0.0.1', redisPort, 200)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  say(`redis-server did not answer on 127.0.0.1:${redisPort} within 5 s`);
}

/** Debian's server binaries (`postgresql` package): /usr/lib/postgresql/<major>/bin, newest first. */
function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] && join(root, majors[0], 'bin');
}

async function ensurePostgres() {
  if (await listening(pgHost, pgPort)) return;
  if (!isLocalPg) {
    say(`nothing answers at ${pgHost}:${pgPort} (DATABASE_URL); the PostgreSQL tests will fail until it does`);
    return;
  }
  if (!postgresBin() && !aptInstall('postgresql', `the PostgreSQL store tests need a server on ${pgPort}`)) return;
  // Debian's own cluster may have started on install: if it now answers, use it.
  if (await listening(pgHost, pgPort)) return;
  const bin = postgresBin();
  if (!bin) return say('postgresql installed but no initdb found under /usr/lib/postgresql');
  // An ephemeral cluster for tests: trust auth on loopback only, no fsync, in a fresh temp dir.
  // initdb refuses to run as root: as root it runs as Debian's `postgres` user.
  const dir = mkdtempSync(join(tmpdir(), 'mediagen-postgres-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(ids.stdout.trim()), Number(gid.stdout.trim()));
  }
  const run = (command, args) =>
    spawnSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  const user = decodeURIComponent(databaseUrl.username || 'postgres');
  const data = join(dir, 'data');
  say(`starting an ephemeral PostgreSQL on 127.0.0.1:${pgPort} (log: ${join(dir, 'postgres.log')})`);
  let result = run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', user, '--no-sync', '-E', 'UTF8']);
  if (result.status !== 0) return say(`initdb failed (exit ${result.status})`);
  const serverOptions = `-c listen_addresses=127.0.0.1 -p ${pgPort} -c unix_socket_directories=${dir} -c fsync=off -c full_page_writes=off`;
  result = run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'postgres.log'), '-o', serverOptions, '-w', 'start']);
  if (result.status !== 0) return say(`pg_ctl start failed (exit ${result.status})`);
  const database = decodeURIComponent(databaseUrl.pathname.slice(1)) || 'postgres';
  if (database !== 'postgres') {
    result = run(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(pgPort), '-U', user, database]);
    if (result.status !== 0) say(`createdb ${database} failed (exit ${result.status})`);
  }
}

/** HAProxy (Debian's), for the fleet soak's balancer (`pnpm soak --fleet`); installed, not started (the soak runs its own). */
function ensureHaproxy() {
  if (!onPath('haproxy')) aptInstall('haproxy', 'the fleet soak puts its three instances behind HAProxy');
}

// `node scripts/ensure-services.mjs [chromium] [redis] [postgres] [haproxy]`: those only; all of them by default.
const wanted = process.argv.slice(2);
const want = (name) => wanted.length === 0 || wanted.includes(name);
if (want('chromium')) await ensureChromium();
if (want('redis')) await ensureRedis();
if (want('postgres')) await ensurePostgres();
if (want('haproxy')) ensureHaproxy();
