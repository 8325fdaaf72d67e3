import { fileURLToPath } from 'node:url';
import { type MediaGenSettings, readSettings } from './settings.js';

/** Everything the app reads from the environment. The defaults run it against a local emulator with no setup. */
export interface Config extends MediaGenSettings {
  /** The ledger's SQLite file and, with `persistOutputs`, the outputs live here. */
  dataDir: string;
  /** Copy each output into `<dataDir>/outputs` (served at /outputs): links that outlive the service's. */
  persistOutputs: boolean;
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
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const settings = readSettings((name) => env[name]);
  return {
    ...settings,
    publicUrl: (env.PUBLIC_URL || `http://127.0.0.1:${settings.port}`).replace(/\/+$/, ''),
    dataDir: env.DATA_DIR ?? fileURLToPath(new URL('../data', import.meta.url)),
    persistOutputs: env.PERSIST_OUTPUTS === '1' || env.PERSIST_OUTPUTS === 'true',
  };
}
