import 'server-only';
import { join } from 'node:path';
import { Gate, MediaGenClient, MemoryGateStore } from '@mediagen/core';
import { createGenerationLedger, type GenerationLedger, type GenerationStore, ledgerSource } from '@mediagen/core/ledger';
import { FileMediaStore } from '@mediagen/core/node';
import {
  createMediaGenHandler,
  type MediaGenHandler,
  type MediaGenHandlerOptions,
  MemoryBudgetStore,
  queueGateStore,
} from '@mediagen/core/server';
import { PostgresGenerationStore } from '@mediagen/postgres';
import { RedisDedupeStore, RedisGateStore, RedisGenerationEvents } from '@mediagen/redis';
import { SqliteGenerationStore } from '@mediagen/sqlite';
import { after } from 'next/server';
import { readConfig } from './config';
import { userOf } from './user';

export interface Studio {
  client: MediaGenClient;
  /**
   * The one handler behind every route under /api (app/api/[...mediagen]/route.ts) and the
   * server actions (app/actions.ts): one rule set for both.
   */
  handler: MediaGenHandler;
  /** The generation ledger: the one record of every generation (routes, webhook, reconciler). */
  ledger: GenerationLedger;
  /** The ledger's SQLite file (unused when `store` is given). The store opens it on first use, never at module load (`next build`). */
  databaseFile: string;
  /** Stops the reconciler (its pass in flight ends first) and closes the database and Redis connections. */
  close(): Promise<void>;
}

/** What a studio is made of; `studio()` reads it from the environment. */
export interface StudioOptions {
  client: MediaGenClient;
  /** The ledger's SQLite file. */
  databaseFile: string;
  /** The ledger's store instead of the SQLite file (PostgreSQL, for several instances). */
  store?: GenerationStore & { close?(): Promise<void> };
  /** More to close with the studio (its Redis connections). */
  closers?: (() => Promise<void>)[];
  /**
   * The handler's options besides its client and its mount at /api (who the user is, where
   * generations are kept, the webhook's secrets), given the studio's ledger.
   */
  routes(ledger: GenerationLedger): Omit<MediaGenHandlerOptions, 'client' | 'basePath'>;
}

/** The studio's ledger on SQLite and its one handler, mounted at /api (the catch-all route's folder). */
export function createStudio({
  client,
  databaseFile,
  store = new SqliteGenerationStore({ filename: databaseFile }),
  closers = [],
  routes,
}: StudioOptions): Studio {
  const ledger = createGenerationLedger({
    client,
    store,
    onError: (error) => console.warn('ledger:', error instanceof Error ? error.message : error),
  });
  return {
    client,
    ledger,
    databaseFile,
    handler: createMediaGenHandler({ ...routes(ledger), client, basePath: '/api' }),
    async close() {
      await ledger.stop();
      await store.close?.();
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}

/** The studio this app runs: its settings from the environment. */
function fromEnvironment(): Studio {
  const config = readConfig();
  // Several instances (MEDIAGEN_REDIS_URL): de-dup, the account gate and the events on one Redis.
  // Each store opens its connection on first use, never at module load (`next build`).
  const redis = config.redisUrl
    ? {
        events: new RedisGenerationEvents({ redis: config.redisUrl, prefix: 'studio:', onError: () => {} }),
        gate: new RedisGateStore({ redis: config.redisUrl, prefix: 'studio:gate:' }),
        dedupe: new RedisDedupeStore({ redis: config.redisUrl, prefix: 'studio:dedupe:' }),
      }
    : undefined;
  return createStudio({
    client: new MediaGenClient({
      apiKey: config.apiKey,
      baseUrl: config.baseUrl,
      // The account's limits kept here (5 generations at once on Pro), submits past them waiting
      // in one line, first come first served: the page is told its place (`useGenerate().queue`)
      // and can stop it before it is sent. On Redis the line is every instance's.
      gate: new Gate({ store: redis ? redis.gate : queueGateStore(new MemoryGateStore()) }),
      ...(redis && { events: redis.events }),
    }),
    databaseFile: config.databaseFile ?? join(process.cwd(), 'data', 'generations.db'),
    store: config.databaseUrl ? new PostgresGenerationStore({ pool: config.databaseUrl }) : undefined,
    closers: redis ? [() => redis.events.close(), () => redis.gate.close(), () => redis.dedupe.close()] : [],
    routes: (ledger) => ({
      identify: userOf,
      // Submits (intent first), reads, lists and verified webhook events all go through the
      // ledger (a repeat or a late event changes nothing, even across restarts).
      source: ledgerSource(ledger),
      // Each user's own budget (MEDIAGEN_USER_CREDITS a day), priced exactly and reserved before a
      // submit is sent. In memory: this app runs as one instance (on many, RedisBudgetStore or
      // PostgresBudgetStore shares it).
      budget:
        config.userCredits === undefined
          ? undefined
          : { store: new MemoryBudgetStore(), limits: () => ({ creditsPerPeriod: config.userCredits, periodMs: 86_400_000, inFlight: 5 }) },
      // `after` keeps work past the answer alive.
      webhook: { secrets: config.webhookSecrets, waitUntil: after, ...(redis && { dedupe: redis.dedupe }) },
      // Files from the studio (POST /api/uploads), kept in a folder and served to the service under
      // signed, expiring links on this app's own GET /api/uploads/:key. Tokens are signed with
      // MEDIAGEN_UPLOAD_SECRET, else the webhook secret.
      uploads: {
        store: new FileMediaStore({
          directory: config.uploadsDir ?? join(process.cwd(), 'data', 'uploads'),
          url: `${config.publicUrl}/api/uploads`,
        }),
      },
    }),
  });
}

/** Where the instance lives: Next may evaluate this module once per route bundle. */
const holder = globalThis as { __mediagenStudio?: Studio };

/**
 * The app's one client, ledger and handler, built from the environment on first use. Kept on
 * `globalThis` (the usual Next pattern for a database handle): every route shares one ledger
 * (one SQLite connection, one reconciler) and one client (whose `events` the webhook route
 * feeds, so a stream ends on the webhook).
 */
export function studio(): Studio {
  holder.__mediagenStudio ??= fromEnvironment();
  return holder.__mediagenStudio;
}

/**
 * Makes `studio()` answer `instance` instead: the routes that load after this serve with it.
 * How the monorepo runs its conformance suites on these very route files (in place of the
 * environment's settings, each suite's own options); an app has no need of it.
 */
export function provideStudio(instance: Studio): void {
  holder.__mediagenStudio = instance;
}
