import { fileURLToPath } from 'node:url';
import type { ConfigService } from '@nestjs/config';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface SampleConfig {
  port: number;
  apiKey: string;
  baseUrl: string;
  /** Several, comma-separated, while a secret is being rotated. */
  webhookSecrets: string[];
  /** The SQLite file. Default `data/generations.db` beside the app. */
  databaseFile: string;
  /** Poll a running generation once it has had no news (no webhook) for this long. Default 15 s. */
  pollStaleAfterMs: number;
  /** How often to look for such generations. Default 5 s. */
  pollIntervalMs: number;
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
    databaseFile: config.get('DATABASE_FILE') ?? fileURLToPath(new URL('../data/generations.db', import.meta.url)),
    pollStaleAfterMs: Number(config.get('POLL_STALE_AFTER_MS') ?? 15_000),
    pollIntervalMs: Number(config.get('POLL_INTERVAL_MS') ?? 5_000),
  };
}
