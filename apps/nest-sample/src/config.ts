import { fileURLToPath } from 'node:url';
import type { ConfigService } from '@nestjs/config';
import { type MediaGenSettings, readSettings } from './settings.js';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface SampleConfig extends MediaGenSettings {
  /** Where the app keeps its data: the ledger's SQLite file, `generations.db`. Default `data/` beside the app. */
  dataDir: string;
  /**
   * `PUBLIC_URL`: the app's address as the service reaches it; the links of uploaded files
   * (`<dataDir>/uploads`, served at /api/uploads/:key) start with it. Default
   * `http://127.0.0.1:<PORT>` (the emulator fetches it with loopback inputs on; the real service
   * fetches only public https links).
   */
  publicUrl: string;
}

/**
 * The settings every sample reads (settings.ts: with `NODE_ENV=production` the key and webhook
 * secret must be set, and the app does not start), and this app's own.
 */
export function readConfig(config: ConfigService): SampleConfig {
  const settings = readSettings((name) => config.get(name));
  return {
    ...settings,
    publicUrl: (config.get<string>('PUBLIC_URL') || `http://127.0.0.1:${settings.port}`).replace(/\/+$/, ''),
    dataDir: config.get('DATA_DIR') ?? fileURLToPath(new URL('../data/', import.meta.url)),
  };
}
