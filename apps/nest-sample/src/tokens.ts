/** The app's settings, read once from `ConfigService`. */
export const SAMPLE_CONFIG = Symbol('SAMPLE_CONFIG');

/** The generation ledger (`@mediagen/core/ledger`): the one record of every generation, shared by the routes and the webhook. */
export const GENERATION_LEDGER = Symbol('GENERATION_LEDGER');

/** What the ledger reads the time from (`() => ms`). `Date.now`; tests put the emulator's moved clock here. */
export const LEDGER_CLOCK = Symbol('LEDGER_CLOCK');

/** The ledger as `MediaGenModule`'s `routes.source` (`ledgerSource(ledger)`). */
export const GENERATION_SOURCE = Symbol('GENERATION_SOURCE');

/** `MediaGenModule`'s options, less where it is mounted (`mediagen-options.ts`). */
export const MEDIAGEN_OPTIONS = Symbol('MEDIAGEN_OPTIONS');

/** The ledger's own client (`ledger.module.ts`), from the config's key and URL. */
export const LEDGER_CLIENT = Symbol('LEDGER_CLIENT');
