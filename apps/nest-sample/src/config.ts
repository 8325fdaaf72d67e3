import { fileURLToPath } from 'node:url';
import type { ConfigService } from '@nestjs/config';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface SampleConfig {
  port: number;
  apiKey: string;
  baseUrl: string;
  /** Several, comma-separated, while a secret is being rotated. */
  webhookSecrets: string[];
  /** Where the app keeps its data: the ledger's SQLite file, `generations.db`. Default `data/` beside the app. */
  dataDir: string;
}

export function readConfig(config: ConfigService): SampleConfig {
  return {
    port: Number(config.get('PORT') ?? 3000),
    apiKey: config.get('MEDIAGEN_API_KEY') ?? 'svc_live_emulator_demo',
    baseUrl: config.get('MEDIAGEN_BASE_URL') ?? 'http://127.0.0.1:4010',
    webhookSecrets: String(config.get('MEDIAGEN_WEBHOOK_SECRET') ?? 'whsec_emulator_demo')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    dataDir: config.get('DATA_DIR') ?? fileURLToPath(new URL('../data/', import.meta.url)),
  };
}
