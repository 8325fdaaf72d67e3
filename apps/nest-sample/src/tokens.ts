/** The app's settings, read once from `ConfigService`. */
export const SAMPLE_CONFIG = Symbol('SAMPLE_CONFIG');

/** The generation ledger (`@mediagen/core/ledger`): the one record of every generation, shared by the routes and the webhook. */
export const GENERATION_LEDGER = Symbol('GENERATION_LEDGER');

/** What the ledger reads the time from (`() => ms`). `Date.now`; tests put the emulator's moved clock here. */
export const LEDGER_CLOCK = Symbol('LEDGER_CLOCK');

/** The ledger as `MediaGenModule`'s `routes.source` (`ledgerSource(ledger)`). */
export const GENERATION_SOURCE = Symbol('GENERATION_SOURCE');
