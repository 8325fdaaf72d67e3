import { fileURLToPath } from 'node:url';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface Config {
  port: number;
  apiKey: string;
  baseUrl: string;
  /** Several, comma-separated, while a secret is being rotated. */
  webhookSecrets: string[];
  /** The ledger's SQLite file and, with `persistOutputs`, the outputs live here. */
  dataDir: string;
  /** Copy each output into `<dataDir>/outputs` (served at /outputs): links that outlive the service's. */
  persistOutputs: boolean;
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
    dataDir: env.DATA_DIR ?? fileURLToPath(new URL('../data', import.meta.url)),
    persistOutputs: env.PERSIST_OUTPUTS === '1' || env.PERSIST_OUTPUTS === 'true',
  };
}

/**
 * `name` from the environment (blank counts as unset), else the local emulator's demo value. The
 * demo key and webhook secret are public: in production they would let anyone sign a webhook
 * this app accepts. So with `NODE_ENV=production` each one must be set, and the app does not start.
 */
function settingFrom(env: NodeJS.ProcessEnv) {
  return (name: string, demo: string): string => {
    const value = env[name]?.trim();
    if (value) return value;
    if (env.NODE_ENV === 'production')
      throw new Error(`${name} must be set in production: the default is the emulator's public demo value.`);
    return demo;
  };
}
