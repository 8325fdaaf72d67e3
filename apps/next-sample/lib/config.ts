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
  return {
    port: Number(env.PORT ?? 3000),
    apiKey: env.MEDIAGEN_API_KEY ?? 'svc_live_emulator_demo',
    baseUrl: env.MEDIAGEN_BASE_URL ?? 'http://127.0.0.1:4010',
    webhookSecrets: (env.MEDIAGEN_WEBHOOK_SECRET ?? 'whsec_emulator_demo')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    databaseFile: env.MEDIAGEN_SAMPLE_DB || undefined,
  };
}
