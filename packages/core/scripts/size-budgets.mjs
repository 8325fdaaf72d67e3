// The bundle budgets, read by `pnpm size` (packages/core/scripts/size.mjs) and `pnpm bench`
// (bench/src/bundle-size.mjs), strictly in bytes of min+gzip.
//
// History, in the open: the client landed under 10,000 B and the whole root entry was one
// budget. Issues 9 and 10 added redaction, bounded body reads, response-shape checks, the
// request log, the User-Agent and the contract's params rules (about 1.7 KB); issue 13 added
// wait() racing the webhook, its event-built fallback and the gate's 429 feedback, lost-answer
// hold and resend counting (about 0.9 KB). The budgets moved with those features.
// `pnpm size` and the bench then measured in two ways (neutral vs node platform, `export *` vs an
// import kept alive) that differed by ~50 B on the root; they now share scripts/gzipped-size.mjs,
// the bench's way, and the root budget was re-based by that difference (12,758 B the old way is
// 12,810 B this way, for the same code).
export const BUDGETS = {
  /** `MediaGenClient` and its errors: what an app that calls the service ships. */
  client: 10_800,
  /** `import *` of the root entry: client, webhooks, validation, pricing, links, gate, events. */
  root: 12_850,
  /** `verifyWebhook` alone (tree-shaking works). */
  verify: 2_000,
};
