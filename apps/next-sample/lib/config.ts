import { PHASE_PRODUCTION_BUILD } from 'next/constants';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface Config {
  port: number;
  apiKey: string;
  baseUrl: string;
  /** Several, comma-separated, while a secret is being rotated. */
  webhookSecrets: string[];
  /** `MEDIAGEN_SAMPLE_DB`: where the SQLite file lives. Default `data/generations.db` in the app's folder. */
  databaseFile: string | undefined;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const setting = settingFrom(env);
  return {
    port: Number(env.PORT ?? 3000),
    apiKey: setting('MEDIAGEN_API_KEY', 'svc_live_emulator_demo'),
    baseUrl: setting('MEDIAGEN_BASE_URL', 'http://127.0.0.1:4010'),
    webhookSecrets: setting('MEDIAGEN_WEBHOOK_SECRET', 'whsec_emulator_demo')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    databaseFile: env.MEDIAGEN_SAMPLE_DB || undefined,
  };
}

/**
 * `name` from the environment (blank counts as unset), else the local emulator's demo value. The
 * demo key and webhook secret are public: in production they would let anyone sign a webhook
 * this app accepts. So with `NODE_ENV=production` (what `next start` sets) each one must be set,
 * and the studio refuses to serve.
 */
function settingFrom(env: NodeJS.ProcessEnv) {
  return (name: string, demo: string): string => {
    const value = env[name]?.trim();
    if (value) return value;
    // `next build` evaluates the routes with NODE_ENV=production too: the check is for the server that runs.
    if (env.NODE_ENV === 'production' && env.NEXT_PHASE !== PHASE_PRODUCTION_BUILD) {
      throw new Error(`${name} must be set in production: the default is the emulator's public demo value.`);
    }
    return demo;
  };
}
