/**
 * `@mediagen/core/testing`: switches for tests and benchmarks, kept out of the app-facing
 * entry. `verifyWebhookWith(createHmac('web'), input)` runs the Web Crypto path on Node, as an
 * edge runtime runs it.
 */
export { createHmac, type Hmac, type HmacBackend } from './crypto/hmac';
export { signWebhook, verifyWebhookWith } from './webhooks/verify';
