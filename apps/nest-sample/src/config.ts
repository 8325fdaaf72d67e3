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
  const setting = settingFrom(config);
  return {
    port: Number(config.get('PORT') ?? 3000),
    apiKey: setting('MEDIAGEN_API_KEY', 'svc_live_emulator_demo'),
    baseUrl: setting('MEDIAGEN_BASE_URL', 'http://127.0.0.1:4010'),
    webhookSecrets: setting('MEDIAGEN_WEBHOOK_SECRET', 'whsec_emulator_demo')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    dataDir: config.get('DATA_DIR') ?? fileURLToPath(new URL('../data/', import.meta.url)),
  };
}

/**
 * `name` from the environment (blank counts as unset), else the local emulator's demo value. The
 * demo key and webhook secret are public: in production they would let anyone sign a webhook
 * this app accepts. So with `NODE_ENV=production` each one must be set, and the app does not start.
 */
function settingFrom(config: ConfigService) {
  return (name: string, demo: string): string => {
    const value = String(config.get(name) ?? '').trim();
    if (value) return value;
    if (config.get('NODE_ENV') === 'production') {
      throw new Error(`${name} must be set in production: the default is the emulator's public demo value.`);
    }
    return demo;
  };
}
