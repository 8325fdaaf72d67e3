/**
 * The local emulator's defaults (`@mediagen/emulator` with no config): where it listens, the demo
 * account's key and the secret it signs webhooks with. Outside production the SDK uses them when
 * nothing else is configured, so a new app runs against `npx -p @mediagen/emulator mediagen-emulator`
 * with no settings at all. None is a secret: they open only a local emulator's demo account.
 */
export const EMULATOR_BASE_URL = 'http://127.0.0.1:4010';
/** The key of the emulator's demo account (`acct_demo`, 15,000 credits). */
export const EMULATOR_API_KEY = 'svc_live_emulator_demo';
/** What the emulator signs webhooks with when `MEDIAGEN_WEBHOOK_SECRET` is not set where it runs. */
export const EMULATOR_WEBHOOK_SECRET = 'whsec_emulator_demo';
/** What a newcomer runs to start it: a command that resolves to this project's package, whatever the app installed. */
export const EMULATOR_COMMAND = 'npx -p @mediagen/emulator mediagen-emulator';
