// Row: what the generation ledger adds to a submit (issue 21): `ledger.submit` (intent written,
// call, id recorded) against a bare `generations.create` on the same emulator (its own process),
// with the ledger on SQLite (a file in a temp dir) and on PostgreSQL (DATABASE_URL, its own
// schema), in interleaved rounds; the ratio is taken round by round, reported at its median.
// Beside them, what any ledger on PostgreSQL pays at the least, on the same pool: one durable
// single-row commit alone; and the floor of a submit that keeps the ledger's two promises (the
// intent durable before the call, the answer visible to every instance when it resolves): a
// minimal durable INSERT, the same bare call, a minimal asynchronous UPDATE, on a 2-column table.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, MemoryGenerationStore } from '@mediagen/core/ledger';
import { PostgresGenerationStore } from '@mediagen/postgres';
import { SqliteGenerationStore } from '@mediagen/sqlite';
import pg from 'pg';
import { here, startChild } from './child.mjs';
import { fmt, interleave, repeat, summarize } from './measure.mjs';

/**
 * SQLite against a bare call; PostgreSQL against the floor of its own two writes in the same run
 * (a bare call's multiple is below what those two writes cost on this machine: the floor is
 * about 2× bare here, so "2× bare" judged the database, not the ledger).
 */
const TARGETS = { sqlite: 1.5, postgresToFloor: 1.15 };
const KEY = 'svc_live_bench_ledger';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresOrReason() {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4, connectionTimeoutMillis: 5_000 });
  try {
    await pool.query('SELECT 1');
    return { pool };
  } catch (error) {
    await pool.end().catch(() => {});
    return { reason: `no PostgreSQL at DATABASE_URL (${String(error?.message ?? error).slice(0, 80)})` };
  }
}

/** The floor: what a submit costs with the ledger's two writes and nothing else (see the header). */
async function floorSubmit(pool, client, schema, k, params) {
  await pool.query({ name: 'floor_intent', text: `INSERT INTO ${schema}.floor VALUES ($1, NULL)`, values: [k] });
  const submitted = await client.generations.create(params);
  await pool.query({
    name: 'floor_answer',
    text: `UPDATE ${schema}.floor SET id = $1 FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit WHERE k = $2`,
    values: [submitted.generation_id, k],
  });
}

export async function run({ quick }) {
  const rounds = quick ? 15 : 60;
  const perRound = 4;
  const emulator = await startChild(here('./child/emulator-server.mjs'), {
    env: {
      BENCH_EMULATOR_CONFIG: JSON.stringify({
        timeScale: 0.0001,
        accounts: [{ id: 'acct_ledger', tier: 'ultimate', balance: 1_000_000, keys: [{ key: KEY }] }],
      }),
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'mediagen-bench-ledger-'));
  const pgSide = await postgresOrReason();
  const schema = `mg_bench_${process.pid}_${Date.now().toString(36)}`;
  const sqliteStore = new SqliteGenerationStore({ filename: join(dir, 'ledger.db') });
  try {
    const baseUrl = emulator.info.url;
    // The model list is cached before the first round (validation, poll intervals).
    const client = new MediaGenClient({ apiKey: KEY, baseUrl, maxRetries: 0 });
    await client.models.list();
    const ledgers = {
      memory: createGenerationLedger({ client, store: new MemoryGenerationStore() }),
      sqlite: createGenerationLedger({ client, store: sqliteStore }),
    };
    if (pgSide.pool) {
      await pgSide.pool.query(`CREATE SCHEMA ${schema}`);
      await pgSide.pool.query(`CREATE TABLE ${schema}.commits (n INTEGER PRIMARY KEY)`);
      await pgSide.pool.query(`CREATE TABLE ${schema}.floor (k INTEGER PRIMARY KEY, id TEXT)`);
      ledgers.postgres = createGenerationLedger({
        client,
        store: new PostgresGenerationStore({ pool: pgSide.pool, table: `${schema}.generations` }),
      });
    }
    let n = 0;
    const params = () => ({ model: 'image-fast', prompt: `ledger bench ${n++}` });
    const cases = {
      bare: () => repeat(perRound, () => client.generations.create(params())),
      ...Object.fromEntries(
        Object.entries(ledgers).map(([name, ledger]) => [name, () => repeat(perRound, () => ledger.submit('bench', params()))]),
      ),
      ...(pgSide.pool && {
        commit: () => repeat(perRound, () => pgSide.pool.query(`INSERT INTO ${schema}.commits VALUES ($1)`, [n++])),
        floor: () => repeat(perRound, () => floorSubmit(pgSide.pool, client, schema, n++, params())),
      }),
    };
    // Every submit counts against the account's per-minute limit: the emulator's clock moves a
    // minute between cases, so the limit never answers 429 in the middle of a round.
    const between = () =>
      fetch(`${baseUrl}/__emulator/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceMs: 60_000 }),
      }).then((r) => r.text());
    const { samples } = await interleave({ cases, rounds, warmup: 3, opsPerSample: perRound, between });
    const s = summarize(samples, 'bare');
    const store = (name) => (name in s ? `${fmt.time(s[name].time.median)} (${fmt.ratio(s[name].ratioToFloor)} bare)` : pgSide.reason);
    const commit = s.commit
      ? `; one durable commit alone ${fmt.time(s.commit.time.median)} (${fmt.ratio(s.commit.ratioToFloor)} bare); two-statement floor ${fmt.time(s.floor.time.median)} (${fmt.ratio(s.floor.ratioToFloor)} bare)`
      : '';
    // PostgreSQL judged round by round against the two-statement floor measured in the same rounds.
    const toFloor = s.floor ? summarize(samples, 'floor') : undefined;
    const pgToFloor = toFloor?.postgres?.ratioToFloor;
    const pass =
      'sqlite' in s &&
      s.sqlite.ratioToFloor.median <= TARGETS.sqlite &&
      pgToFloor !== undefined &&
      pgToFloor.median <= TARGETS.postgresToFloor;
    return {
      rows: [
        {
          id: 'ledger-submit',
          what: `Ledger submit vs bare generations.create ×${rounds * perRound} each (per call, p50)`,
          ours: `SQLite ${store('sqlite')}; PostgreSQL ${store('postgres')}${commit}`,
          floor: fmt.timeRange(s.bare.time),
          ratio: `SQLite ${fmt.ratio(s.sqlite.ratioToFloor)} bare, PostgreSQL ${pgToFloor ? `${fmt.ratio(pgToFloor)} its two-statement floor (${fmt.ratio(s.postgres.ratioToFloor)} bare)` : 'n/a'}, memory ${fmt.ratio(s.memory.ratioToFloor)} bare`,
          target: `≤ ${TARGETS.sqlite}× bare on SQLite; ≤ ${TARGETS.postgresToFloor}× the two-statement floor on PostgreSQL`,
          status: pass ? 'pass' : 'miss',
          note: 'bare = client.generations.create; ledger.submit = intent insert, the same call, the id recorded (compare-and-set); emulator in a second process at timeScale 0.0001; SQLite WAL synchronous=NORMAL in a temp file; PostgreSQL at DATABASE_URL in its own schema: per submit two named statements, the intent a durable commit before the call, the id an asynchronous one after it (packages/postgres/src/async-commit.ts); one durable commit = a single-row INSERT on the same pool; two-statement floor = a durable single-row INSERT, the same bare call, an asynchronous single-row UPDATE of the id (named statements, 2-column table, no ledger code): the least a submit costs that records its intent durably before the call and its answer before it resolves; per-round ratios',
        },
      ],
      raw: { rounds, perRound, summary: s, samples },
    };
  } finally {
    await sqliteStore.close();
    if (pgSide.pool) {
      await pgSide.pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await pgSide.pool.end();
    }
    rmSync(dir, { recursive: true, force: true });
    await emulator.stop();
  }
}
