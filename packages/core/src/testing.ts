/**
 * `@mediagen/core/testing`: switches for tests and benchmarks, kept out of the app-facing
 * entry. `verifyWebhookWith(createHmac('web'), input)` runs the Web Crypto path on Node, as an
 * edge runtime runs it. (`signWebhook` is the root entry's.)
 */
export { createHmac, type Hmac, type HmacBackend } from './crypto/hmac';
export { verifyWebhookWith } from './webhooks/verify';
