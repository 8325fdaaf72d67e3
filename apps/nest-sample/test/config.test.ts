/**
 * The emulator's demo key and webhook secret are public. Outside production they let the app run
 * against a local emulator with no setup; in production a missing one stops the app at start, so
 * no deployed copy accepts webhooks signed with the documented demo secret.
 */
import type { ConfigService } from '@nestjs/config';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';

const SET = { MEDIAGEN_API_KEY: 'svc_live_real', MEDIAGEN_BASE_URL: 'https://api.example', MEDIAGEN_WEBHOOK_SECRET: 'whsec_real' };
/** What `ConfigService.get` answers, from exactly these values (the test process's own env aside). */
const configOf = (env: Record<string, string | undefined>) => ({ get: (name: string) => env[name] }) as unknown as ConfigService;

describe('readConfig', () => {
  it('outside production: the emulator defaults, blank counting as unset', () => {
    const config = readConfig(configOf({ NODE_ENV: 'development', MEDIAGEN_WEBHOOK_SECRET: '  ' }));
    expect([config.apiKey, config.baseUrl, config.webhookSecrets]).toEqual([
      'svc_live_emulator_demo',
      'http://127.0.0.1:4010',
      ['whsec_emulator_demo'],
    ]);
  });

  it.each(Object.keys(SET))('in production without %s (or with it blank): refuses to start, naming it', (name) => {
    for (const value of [undefined, '', ' \t']) {
      const env = { ...SET, NODE_ENV: 'production', [name]: value };
      expect(() => readConfig(configOf(env))).toThrow(new RegExp(`^${name} must be set in production`));
    }
  });

  it('in production with every setting: what was set, never a demo value', () => {
    const config = readConfig(configOf({ ...SET, NODE_ENV: 'production', MEDIAGEN_WEBHOOK_SECRET: 'whsec_new, whsec_old' }));
    expect([config.apiKey, config.baseUrl, config.webhookSecrets]).toEqual([
      'svc_live_real',
      'https://api.example',
      ['whsec_new', 'whsec_old'],
    ]);
  });
});
