// One file shared by the MediaGen sample apps, the same in each (its source: apps/shared/ in the MediaGen repo).

/** What every sample reads from its environment. The defaults run it against a local emulator with no setup. */
export interface MediaGenSettings {
  /** `PORT`: where the app listens. Default 3000. */
  port: number;
  /** `MEDIAGEN_API_KEY`. */
  apiKey: string;
  /** `MEDIAGEN_BASE_URL`: the service, or the emulator (default `http://127.0.0.1:4010`). */
  baseUrl: string;
  /** `MEDIAGEN_WEBHOOK_SECRET`: several, comma-separated, while a secret is being rotated. */
  webhookSecrets: string[];
}

/** One setting by name: `(name) => process.env[name]`, or a config service's `get`. */
export type ReadSetting = (name: string) => unknown;

export interface SettingsOptions {
  /**
   * Whether the app runs in production, where the emulator's public demo values are refused.
   * Default: `NODE_ENV` is `production`.
   */
  production?: boolean;
}

export function readSettings(read: ReadSetting, options: SettingsOptions = {}): MediaGenSettings {
  const setting = settingFrom(read, options);
  return {
    port: Number(read('PORT') ?? 3000),
    apiKey: setting('MEDIAGEN_API_KEY', 'svc_live_emulator_demo'),
    baseUrl: setting('MEDIAGEN_BASE_URL', 'http://127.0.0.1:4010'),
    webhookSecrets: setting('MEDIAGEN_WEBHOOK_SECRET', 'whsec_emulator_demo')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
}

/**
 * `setting(name, demo)`: `name`'s value (blank counts as unset), else the local emulator's demo
 * value. The demo key and webhook secret are public: in production they would let anyone sign a
 * webhook this app accepts. So in production each one must be set, and the app does not start.
 */
export function settingFrom(read: ReadSetting, { production = text(read('NODE_ENV')) === 'production' }: SettingsOptions = {}) {
  return (name: string, demo: string): string => {
    const value = text(read(name));
    if (value) return value;
    if (production) throw new Error(`${name} must be set in production: the default is the emulator's public demo value.`);
    return demo;
  };
}

const text = (value: unknown): string => (value == null ? '' : String(value).trim());
