import { fileURLToPath } from 'node:url';
import type { ConfigService } from '@nestjs/config';
import { type MediaGenSettings, readSettings } from './settings.js';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface SampleConfig extends MediaGenSettings {
  /** Where the app keeps its data: the ledger's SQLite file, `generations.db`. Default `data/` beside the app. */
  dataDir: string;
}

/**
 * The settings every sample reads (settings.ts: with `NODE_ENV=production` the key and webhook
 * secret must be set, and the app does not start), and this app's own.
 */
export function readConfig(config: ConfigService): SampleConfig {
  return {
    ...readSettings((name) => config.get(name)),
    dataDir: config.get('DATA_DIR') ?? fileURLToPath(new URL('../data/', import.meta.url)),
  };
}
