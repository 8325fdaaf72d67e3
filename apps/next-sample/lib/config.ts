import { PHASE_PRODUCTION_BUILD } from 'next/constants';
import { type MediaGenSettings, readSettings } from './settings';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface Config extends MediaGenSettings {
  /** `MEDIAGEN_SAMPLE_DB`: where the SQLite file lives. Default `data/generations.db` in the app's folder. */
  databaseFile: string | undefined;
  /** `MEDIAGEN_UPLOADS_DIR`: where files uploaded from the studio are kept. Default `data/uploads` in the app's folder. */
  uploadsDir: string | undefined;
  /**
   * `PUBLIC_URL`: the app's own address as the service reaches it, which the uploads' links start
   * with. Default `http://127.0.0.1:<PORT>` (the emulator fetches it with loopback inputs on; the
   * real service fetches only public https links).
   */
  publicUrl: string;
  /**
   * `MEDIAGEN_USER_CREDITS`: credits each user may spend per day (UTC), enforced by the handler's
   * budget before anything is sent and shown on the page. Unset: no per-user budget.
   */
  userCredits: number | undefined;
  /**
   * `MEDIAGEN_DATABASE_URL`: a PostgreSQL connection string. Set, the ledger lives there instead
   * of the SQLite file, shared by every instance of the app (several behind a balancer).
   */
  databaseUrl: string | undefined;
  /**
   * `MEDIAGEN_REDIS_URL`: set, the webhook de-duplication, the account gate and the events (a
   * stream on one instance hears a webhook another received) are shared on this Redis. Needed as
   * soon as more than one instance serves.
   */
  redisUrl: string | undefined;
}

/**
 * The settings every sample reads (settings.ts: in production, what `next start` sets, the key
 * and webhook secret must be set, and the studio refuses to serve), and this app's own.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // `next build` evaluates the routes with NODE_ENV=production too: the check is for the server that runs.
  const settings = readSettings((name) => env[name], {
    production: env.NODE_ENV === 'production' && env.NEXT_PHASE !== PHASE_PRODUCTION_BUILD,
  });
  return {
    ...settings,
    databaseFile: env.MEDIAGEN_SAMPLE_DB || undefined,
    uploadsDir: env.MEDIAGEN_UPLOADS_DIR || undefined,
    databaseUrl: env.MEDIAGEN_DATABASE_URL || undefined,
    redisUrl: env.MEDIAGEN_REDIS_URL || undefined,
    publicUrl: (env.PUBLIC_URL || `http://127.0.0.1:${settings.port}`).replace(/\/+$/, ''),
    userCredits: wholeOrUndefined(env.MEDIAGEN_USER_CREDITS),
  };
}

/** A whole number of credits from the environment, or undefined when unset or blank; anything else stops the app. */
function wholeOrUndefined(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d+$/.test(value.trim())) throw new Error(`MEDIAGEN_USER_CREDITS must be a whole number of credits, not "${value.slice(0, 40)}".`);
  return Number(value.trim());
}
