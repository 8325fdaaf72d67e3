import { PHASE_PRODUCTION_BUILD } from 'next/constants';
import { type MediaGenSettings, readSettings } from './settings';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface Config extends MediaGenSettings {
  /** `MEDIAGEN_SAMPLE_DB`: where the SQLite file lives. Default `data/generations.db` in the app's folder. */
  databaseFile: string | undefined;
}

/**
 * The settings every sample reads (settings.ts: in production, what `next start` sets, the key
 * and webhook secret must be set, and the studio refuses to serve), and this app's own.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    // `next build` evaluates the routes with NODE_ENV=production too: the check is for the server that runs.
    ...readSettings((name) => env[name], { production: env.NODE_ENV === 'production' && env.NEXT_PHASE !== PHASE_PRODUCTION_BUILD }),
    databaseFile: env.MEDIAGEN_SAMPLE_DB || undefined,
  };
}
