// The bundle budgets, read by `pnpm size` (packages/core/scripts/size.mjs) and `pnpm bench`
// (bench/src/bundle-size.mjs), strictly in bytes of min+gzip.
//
// History, in the open: the client landed under 10,000 B and the whole root entry was one
// budget. Issues 9 and 10 added redaction, bounded body reads, response-shape checks, the
// request log, the User-Agent and the contract's params rules (about 1.7 KB); issue 13 added
// wait() racing the webhook, its event-built fallback and the gate's 429 feedback, lost-answer
// hold and resend counting (about 0.9 KB). The budgets moved with those features.
export const BUDGETS = {
  /** `MediaGenClient` and its errors: what an app that calls the service ships. */
  client: 10_800,
  /** `import *` of the root entry: client, webhooks, validation, pricing, links, gate, events. */
  root: 12_800,
  /** `verifyWebhook` alone (tree-shaking works). */
  verify: 2_000,
};
