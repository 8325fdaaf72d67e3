/**
 * `@mediagen/core/internal`: NOT PUBLIC. Plumbing that this repository's own packages share
 * (the Nest adapter's start-up checks, the SQL stores' row shape, the emulator's signer),
 * exported only because a package cannot import another's source. No semver: any release may
 * change or remove any name here. Apps import from the other entries.
 */

export { outputName } from './ledger/persist-outputs';
export { fromStoredRow, hasWorkLeft, patchColumns, STORED_COLUMNS, type StoredRow, toStoredRow } from './ledger/stored-row';
export { isDeliveryTo, routePath, type WatchedServer, watchBodyDeadline } from './node/body-deadline';
export { type ParserRefusal, parserRefusal } from './node/parser-refusal';
export { checkRawBodyKept, type RawBodySupport } from './node/raw-body-check';
export { webhookRefusal } from './webhooks/refusals';
/** For the emulator, which signs without loading the client. Apps: `signWebhook` from `@mediagen/core`. */
export { signWebhook } from './webhooks/verify';
