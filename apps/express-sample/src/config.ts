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
  return {
    port: Number(env.PORT ?? 3000),
    apiKey: env.MEDIAGEN_API_KEY ?? 'svc_live_emulator_demo',
    baseUrl: env.MEDIAGEN_BASE_URL ?? 'http://127.0.0.1:4010',
    webhookSecrets: (env.MEDIAGEN_WEBHOOK_SECRET ?? 'whsec_emulator_demo')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    dataDir: env.DATA_DIR ?? fileURLToPath(new URL('../data', import.meta.url)),
    persistOutputs: env.PERSIST_OUTPUTS === '1' || env.PERSIST_OUTPUTS === 'true',
  };
}
